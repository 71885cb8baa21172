# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# check-doc-refs.pl: the checker behind tests/check-doc-refs.sh, whose
# comment says what it checks and how --rewrite rewrites; that script runs
# it as: perl -w check-doc-refs.pl MODE ROOT [PATH...] (MODE check, list
# or rewrite).

use strict;
use warnings;
use File::Find ();

my ($mode, $root, @paths) = @ARGV;
@paths = qw(providers sim common include kernel-headers tests bench cmake
	     CMakeLists.txt build.sh .ci)
	unless @paths;
# The checker's own files cite the old forms as examples.
my %SELF = map { $_ => 1 } qw(tests/check-doc-refs.sh tests/check-doc-refs.pl);

# The team's reference set, cited by name before the design was written
# down in docs/; what each name becomes.
my %LEGACY = (
	'ionic-device.md'   => 'docs/device-contract.md',
	'ionic-kernel.md'   => 'docs/kernel-contract.md',
	'libibverbs-44.md'  => 'docs/libibverbs-provider-abi.md',
	'real-clients.md'   => 'docs/testing.md',
	'libibverbs-versions.md' => 'docs/rdma-core-versions.md',
);
# Reference files with no counterpart in the repository.
my %UNMAPPED = map { $_ => 1 } qw(
	emulation-techniques.md ionic-dv-extended.md netlink-and-rdma-cm.md
);
my $DEFAULT = 'docs/device-contract.md'; # what a bare § used to mean
my $DEFECTS = 'docs/upstream-defects.md';

# Whitespace between the words of a citation, across comment lines.
my $SP  = qr{(?:[ \t]|\n[ \t]*(?:\*(?!/)|//+|\#+)?)};
my $NUM = qr{\d+(?:\.\d+)*};

my (@records, $nfail);

# ---- files ---------------------------------------------------------------

sub list_files {
	my @files;
	my $git = -e "$root/.git" && !system("git -C '$root' rev-parse " .
					      "--is-inside-work-tree " .
					      ">/dev/null 2>&1");
	if ($git) {
		open(my $fh, '-|', 'git', '-C', $root, 'ls-files', '-z',
		     '--', @paths) or die "git ls-files: $!\n";
		local $/ = "\0";
		while (my $f = <$fh>) {
			chomp $f;
			push @files, $f;
		}
		close $fh;
	} else {
		for my $p (@paths) {
			if (-f "$root/$p") {
				push @files, $p;
				next;
			}
			next unless -d "$root/$p";
			File::Find::find({ no_chdir => 1, wanted => sub {
				return unless -f $_;
				(my $rel = $_) =~ s{^\Q$root\E/}{};
				push @files, $rel;
			} }, "$root/$p");
		}
	}
	return sort grep { !$SELF{$_} && -f "$root/$_" } @files;
}

sub file_kind {
	my ($f) = @_;
	return 'c' if $f =~ /\.(?:c|h|cc|cpp)$/;
	return 'hash' if $f =~ m{(?:^|/)CMakeLists\.txt$} ||
			 $f =~ /\.(?:sh|cmake|py|pl)$/ || $f =~ m{^\.ci/};
	return '';
}

sub slurp {
	my ($path) = @_;
	open(my $fh, '<', $path) or die "$path: $!\n";
	local $/;
	my $t = <$fh>;
	close $fh;
	return $t;
}

# ---- comments ------------------------------------------------------------

# [start, end) of every comment block of C text: /* */ comments, and runs
# of // lines.
sub c_comments {
	my ($t) = @_;
	my @c;
	while ($t =~ m{\G(?:
		  "(?:\\.|[^"\\\n])*"?
		| '(?:\\.|[^'\\\n])*'?
		| (/\*.*?(?:\*/|\z))
		| (//[^\n]*)
		| [^"'/]+
		| .)}gsx) {
		if (defined $1) {
			push @c, [ $-[1], $+[1], 'block' ];
		} elsif (defined $2) {
			my ($s, $e) = ($-[2], $+[2]);
			if (@c && $c[-1][2] eq 'line' &&
			    substr($t, $c[-1][1], $s - $c[-1][1]) =~
			    /^[ \t]*\n[ \t]*$/) {
				$c[-1][1] = $e;
			} else {
				push @c, [ $s, $e, 'line' ];
			}
		}
	}
	return @c;
}

# Comment blocks of shell/CMake text: from a '#' outside quotes (at the
# start of a line or after a blank) to the end of the line; consecutive
# whole-line comments form one block.
sub hash_comments {
	my ($t) = @_;
	my @c;
	my $off = 0;
	for my $line (split /(?<=\n)/, $t) {
		my ($q, $pos) = ('', -1);
		for (my $i = 0; $i < length $line; $i++) {
			my $ch = substr($line, $i, 1);
			if ($q) {
				$i++ if $ch eq '\\' && $q eq '"';
				$q = '' if $ch eq $q;
			} elsif ($ch eq '"' || $ch eq "'") {
				$q = $ch;
			} elsif ($ch eq '\\') {
				$i++;
			} elsif ($ch eq '#' &&
				 ($i == 0 || substr($line, $i - 1, 1) =~ /\s/)) {
				$pos = $i;
				last;
			}
		}
		if ($pos >= 0) {
			(my $body = $line) =~ s/\n\z//;
			my ($s, $e) = ($off + $pos, $off + length $body);
			my $whole = substr($line, 0, $pos) =~ /^\s*$/;
			if ($whole && @c && $c[-1][2] &&
			    $c[-1][1] + 1 == $off) {
				$c[-1][1] = $e;
			} else {
				push @c, [ $s, $e, $whole ];
			}
		}
		$off += length $line;
	}
	return @c;
}

# ---- documents -----------------------------------------------------------

my %docs; # repo path -> { nums => {N => 1}, heads => [text], rows => {} }

sub doc_info {
	my ($path) = @_;
	return $docs{$path} if exists $docs{$path};
	my %d = (nums => {}, heads => [], rows => {});
	if (open(my $fh, '<', "$root/$path")) {
		my $fence = 0;
		while (my $l = <$fh>) {
			if ($l =~ /^\s*(```|~~~)/) {
				$fence = !$fence;
				next;
			}
			next if $fence;
			if ($l =~ /^#{1,6}\s+(.*?)\s*#*\s*$/) {
				my $h = $1;
				push @{ $d{heads} }, $h;
				$d{nums}{$1} = 1 if $h =~ /^(?:§)?($NUM)\.?(?:\s|$)/;
			}
			$d{rows}{$1} = 1 if $l =~ /^\|\s*(D\d+)\s*\|/;
		}
		close $fh;
	}
	return $docs{$path} = \%d;
}

# Resolve a cited .md path to a repository path, or undef.
sub resolve_md {
	my ($file, $p) = @_;
	return undef if $p =~ m{^/};
	(my $dir = $file) =~ s{/?[^/]*$}{};
	for my $cand ($p, ($dir ne '' ? "$dir/$p" : ())) {
		my @parts;
		for my $seg (split m{/}, $cand) {
			next if $seg eq '.' || $seg eq '';
			if ($seg eq '..') {
				return undef unless @parts;
				pop @parts;
			} else {
				push @parts, $seg;
			}
		}
		my $rel = join('/', @parts);
		return $rel if $rel ne '' && -f "$root/$rel";
	}
	return undef;
}

# ---- one comment ---------------------------------------------------------

sub record {
	my ($file, $line, $kind, $text, $target, $err) = @_;
	push @records, { file => $file, line => $line, kind => $kind,
			 text => $text, target => $target, err => $err };
	$nfail++ if $err;
}

sub check_secs {
	my ($file, $line, $doc, $legacy, @nums) = @_;
	for my $n (@nums) {
		my $cite = "§$n";
		if (!defined $doc) {
			record($file, $line, 'section', $cite, '',
			       'no document in the repository to look it up in');
			next;
		}
		my $err = doc_info($doc)->{nums}{$n} ? '' :
			  "$doc has no heading numbered $n";
		$err ||= $legacy if $legacy;
		record($file, $line, 'section', $cite, "$doc §$n", $err);
	}
}

# Scan comment [s, e) of $t; push rewrite edits [offset, length, text].
sub scan_comment {
	my ($file, $t, $s, $e, $lineof, $edits) = @_;
	my $c = substr($t, $s, $e - $s);
	my ($doc, $doc_legacy, $named) = (undef, '', 0);
	my $have_defects = 0;

	while ($c =~ m{
		  (?<md> (?<![\w./-]) /? (?:[\w.-]+/)* [\w.-]+\.md\b )
		| (?<ldoc> (?<![\w./-]) (?:ionic-)?(?:device|kernel)
			   (?=$SP+§) )
		| (?<sec> § [ \t]? (?<n1>$NUM)
			  (?<more> (?: $SP* [-/] $SP* (?:§)? $NUM )* ) )
		| (?<def> (?<![0-9A-Fa-f]{2}[ \t]) \bD(?<dn>[1-9]\d?)\b
			  (?![ \t][0-9A-Fa-f]{2}\b) )
	}gx) {
		my ($ms, $me) = ($-[0], $+[0]);
		my $line = $lineof->($s + $ms);
		if (defined $+{md}) {
			my $p = $+{md};
			(my $base = $p) =~ s{.*/}{};
			my $legacy = '';
			my $target;
			if (exists $LEGACY{$base} &&
			    !defined resolve_md($file, $p)) {
				$target = $LEGACY{$base};
				$legacy = "old-style citation of $p " .
					  "(--rewrite: $target)";
				push @$edits, [ $s + $ms, length $p, $target ];
			} elsif ($UNMAPPED{$base} &&
				 !defined resolve_md($file, $p)) {
				record($file, $line, 'document', $p, '',
				       "$p is not in the repository and has " .
				       'no counterpart in docs/');
				($doc, $doc_legacy) = (undef, '');
				$named = 1;
				next;
			} else {
				$target = resolve_md($file, $p);
			}
			if (!defined $target) {
				record($file, $line, 'document', $p, '',
				       "no such file: $p");
				($doc, $doc_legacy, $named) = (undef, '', 1);
				next;
			}
			record($file, $line, 'document', $p, $target, $legacy);
			if ($target eq $DEFECTS) {
				$have_defects = 1;
			} else {
				($doc, $doc_legacy, $named) =
					($target, $legacy, 1);
			}
			# "doc.md 9.4, 9.5" (no §) and 'doc.md "Heading"'
			my $rest = substr($c, $me);
			if ($rest =~ /\A($SP+(?:section$SP+)?)
				      ($NUM(?:$SP*[,\/]$SP*$NUM|-$NUM)*)
				      (?!\w)/x) {
				my ($gap, $list) = ($1, $2);
				my $at = $s + $me + length $gap;
				if ($gap =~ /(section$SP+)/) {
					# "doc.md section 5" -> "doc.md §5"
					push @$edits, [ $s + $me + $-[1],
							length $1, '' ];
				}
				my @nums;
				while ($list =~ /($NUM)/g) {
					push @nums, $1;
					push @$edits, [ $at + $-[1], 0, '§' ];
				}
				my $err = $legacy || 'section number ' .
					  'without §';
				for my $n (@nums) {
					my $ok = $target ne $DEFECTS &&
						 doc_info($target)->{nums}{$n};
					record($file, $line, 'section', $n,
					       "$target §$n",
					       $ok ? $err : "$target has no " .
						 "heading numbered $n");
				}
			} elsif ($rest =~ /\A$SP+"((?:[^"\n]|\n[ \t]*\*?)+)"/) {
				(my $q = $1) =~
					s{\s*\n[ \t]*(?:\*|//|\#)?[ \t]*}{ }g;
				$q =~ s/\s+/ /g;
				my $hit = grep { index(lc $_, lc $q) >= 0 }
					  @{ doc_info($target)->{heads} };
				record($file, $line, 'heading', "\"$q\"",
				       $target, $hit ? $legacy :
				       "$target has no heading \"$q\"");
			}
		} elsif (defined $+{ldoc}) {
			my $w = $+{ldoc};
			my $target = $w =~ /kernel/ ? $LEGACY{'ionic-kernel.md'}
						    : $DEFAULT;
			my $legacy = "old-style citation \"$w §\" " .
				     "(--rewrite: $target)";
			push @$edits, [ $s + $ms, length $w, $target ];
			record($file, $line, 'document', $w, $target, $legacy);
			($doc, $doc_legacy, $named) = ($target, $legacy, 1);
		} elsif (defined $+{sec}) {
			my @nums = ($+{n1});
			my $more = $+{more};
			push @nums, $1 while $more =~ /($NUM)/g;
			if (!$named) {
				# a bare § meant ionic-device.md
				push @$edits, [ $s + $ms, 0, "$DEFAULT " ];
				($doc, $named) = ($DEFAULT, 1);
				$doc_legacy = '§ without a document named ' .
					      'before it in this comment ' .
					      "(--rewrite: $DEFAULT §)";
				check_secs($file, $line, $doc, $doc_legacy,
					   @nums);
				$doc_legacy = '';
				next;
			}
			check_secs($file, $line, $doc, $doc_legacy, @nums);
		} elsif (defined $+{def}) {
			my $d = "D$+{dn}";
			my $err = doc_info($DEFECTS)->{rows}{$d} ? '' :
				  "$DEFECTS has no row $d";
			if (!$have_defects) {
				push @$edits, [ $s + $ms, 0, "$DEFECTS " ];
				$have_defects = 1;
				$err ||= 'defect number without ' .
					 "$DEFECTS named before it in this " .
					 "comment (--rewrite: $DEFECTS $d)";
			}
			record($file, $line, 'defect', $d, "$DEFECTS $d", $err);
		}
	}
}

# ---- keeping rewritten comments within 80 columns --------------------------

my $COLS = 80;

# Display width: tabs to 8, one column per UTF-8 character.
sub width {
	my ($l) = @_;
	my $w = 0;
	for my $ch (split //, $l) {
		if ($ch eq "\t") {
			$w += 8 - $w % 8;
		} elsif (ord($ch) < 0x80 || ord($ch) >= 0xc0) {
			$w++;
		}
	}
	return $w;
}

# A comment line we may wrap: (prefix of a continuation line, text, whether
# the comment continues on the next line of the same kind).
sub comment_line {
	my ($l, $kind) = @_;
	if ($kind eq 'c') {
		return ("$1*$2", $3) if $l =~ m{^(\s*)\*( +)(\S.*)$};
		return ($1 . ' * ', $2) if $l =~ m{^(\s*)/\* (\S.*)$};
		return ($1 . '// ', $2) if $l =~ m{^(\s*)// (\S.*)$};
	} else {
		return ("$1#$2", $3) if $l =~ m{^(\s*)#( +)(\S.*)$};
	}
	return;
}

# Line $i of @$l is "/* text   */" between lines of the same form (a box):
# the text refilled into box lines as wide as the box's other lines, or
# nothing if it is no such line.
sub box_lines {
	my ($l, $i, $kind) = @_;
	return () unless $kind eq 'c' &&
			 $l->[$i] =~ m{^(\s*)/\* (.*?\S)\s+\*/\s*$};
	my ($indent, $text) = ($1, $2);
	my $w;
	for my $j ($i - 1, $i + 1) {
		next if $j < 0 || $j >= @$l;
		next unless $l->[$j] =~ m{^\s*/\* .*\*/\s*$} &&
			    width($l->[$j]) <= $COLS;
		$w = width($l->[$j]);
		last;
	}
	return () unless $w;
	my (@out, $cur);
	for my $word (split ' ', $text) {
		my $try = defined $cur ? "$cur $word" : $word;
		if (defined $cur && width("$indent/* $try */") > $w) {
			push @out, $cur;
			$cur = $word;
		} else {
			$cur = $try;
		}
	}
	push @out, $cur if defined $cur;
	my @lines;
	for my $t (@out) {
		my $line = "$indent/* $t";
		$line .= ' ' x ($w - 2 - width($line)) if width($line) < $w - 2;
		return () if width("$line*/") > $COLS;
		push @lines, "$line*/";
	}
	return @lines;
}

# Lines the rewrite made longer than $COLS: move their last words to the
# next line of the same comment paragraph, or to a new line.  Only lines
# holding a docs/ citation are touched; anything else is left as it was.
sub wrap_long {
	my ($t, $kind) = @_;
	my @l = split /\n/, $t, -1;
	my %dirty; # lines that received words from the line above
	for (my $i = 0; $i < @l; $i++) {
		next unless width($l[$i]) > $COLS &&
			    ($dirty{$i} || $l[$i] =~ m{docs/\S+\.md});
		# a "/* ---- banner ---- */": shorten the dashes instead
		if ($l[$i] =~ /-{5,}/) {
			1 while width($l[$i]) > $COLS && $l[$i] =~ s/-{5,}\K-//;
			next;
		}
		# one line of a box of "/* ... */" lines: refill it in the box
		my @box = box_lines(\@l, $i, $kind);
		if (@box) {
			splice @l, $i, 1, @box;
			$i += @box - 1;
			next;
		}
		my ($prefix, $text) = comment_line($l[$i], $kind);
		next unless defined $prefix;
		my $head = $l[$i];
		my ($tail, $gap) = ('', '');
		while (width($head) > $COLS && $head =~ /^(.*\S)(\s+)(\S+)$/) {
			last if width($1) < width($prefix) + 1;
			$head = $1;
			$tail = $tail eq '' ? $3 : "$3$gap$tail";
			$gap = $2;
		}
		next if $tail eq '' || width($head) > $COLS;
		$l[$i] = $head;
		my $closes = $tail =~ m{\*/\s*$};
		my ($np, $ntext) = $i + 1 < @l ? comment_line($l[$i + 1], $kind) :
						   ();
		# join the next line only if it continues the same paragraph
		if (!$closes && defined $np && $np eq $prefix &&
		    $l[$i + 1] !~ m{^\s*/\*} &&
		    $ntext !~ /^(?:[-+*]\s|\d+[.)]\s|\([a-z0-9]{1,3}\)\s)/) {
			my $sep = $tail =~ /[.?!]\)?$/ ? '  ' : ' ';
			$l[$i + 1] = $prefix . $tail . $sep . $ntext;
		} else {
			splice @l, $i + 1, 0, $prefix . $tail;
			%dirty = map { ($_ > $i ? $_ + 1 : $_) => 1 } keys %dirty;
		}
		$dirty{$i + 1} = 1;
	}
	return join("\n", @l);
}

sub scan_file {
	my ($file, $rewrite) = @_;
	my $kind = file_kind($file);
	return 0 unless $kind;
	my $t = slurp("$root/$file");
	my @starts = (0);
	push @starts, $+[0] while $t =~ /\n/g;
	my $lineof = sub {
		my ($off) = @_;
		my ($lo, $hi) = (0, $#starts);
		while ($lo < $hi) {
			my $mid = int(($lo + $hi + 1) / 2);
			if ($starts[$mid] <= $off) { $lo = $mid } else { $hi = $mid - 1 }
		}
		return $lo + 1;
	};
	my @edits;
	for my $cm ($kind eq 'c' ? c_comments($t) : hash_comments($t)) {
		scan_comment($file, $t, $cm->[0], $cm->[1], $lineof, \@edits);
	}
	return 0 unless $rewrite && @edits;
	for my $ed (sort { $b->[0] <=> $a->[0] } @edits) {
		substr($t, $ed->[0], $ed->[1]) = $ed->[2];
	}
	$t = wrap_long($t, $kind);
	my $n = 0;
	for my $line (split /\n/, $t) {
		$n++;
		printf "%s:%d: note: %d columns\n", $file, $n, width($line)
			if width($line) > $COLS && $line =~ m{docs/\S+\.md};
	}
	open(my $fh, '>', "$root/$file") or die "$file: $!\n";
	print $fh $t;
	close $fh;
	return scalar @edits;
}

# ---- main ----------------------------------------------------------------

binmode STDOUT, ':raw';
my @files = list_files();
if ($mode eq 'rewrite') {
	my $n = 0;
	for my $f (@files) {
		my $k = scan_file($f, 1);
		next unless $k;
		printf "rewrote %d citation(s) in %s\n", $k, $f;
		$n += $k;
	}
	printf "%d citation(s) rewritten\n", $n;
	(@records, $nfail, %docs) = ();
}
$nfail = 0;
scan_file($_, 0) for @files;

for my $r (@records) {
	if ($mode eq 'list') {
		printf "%s:%d: %s %s -> %s%s\n", $r->{file}, $r->{line},
		       $r->{kind}, $r->{text}, $r->{target} || '?',
		       $r->{err} ? "  FAIL: $r->{err}" : '';
	} elsif ($r->{err}) {
		printf "%s:%d: %s: %s\n", $r->{file}, $r->{line}, $r->{text},
		       $r->{err};
	}
}
printf "check-doc-refs: %d citation(s) in %d file(s), %d unresolved\n",
       scalar @records, scalar @files, $nfail;
exit($nfail ? 1 : 0);
