// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim [options] -- COMMAND [ARGS...]
 *
 * Runs COMMAND (and everything it starts) on emulated ionic NICs (one, or
 * --nics N): claims a fabric node id per NIC, writes a private fake sysfs
 * tree, points libibverbs at it and at our provider, preloads the
 * emulator, and cleans everything up however the command ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/trace.h"
#include "../fabric/fabric.h"
#include "../fabric/pcap.h"
#include "launcher.h"
#include "paths.h"

struct opts {
	struct isim_profile prof;
	const char *trace;
	const char *pcap;
	const char *fabric;
	const char *transport; /* "unix" or "udp" */
	const char *addr; /* the NICs' IPv4 addresses (udp), nics.c */
	unsigned int nics; /* --nics: how many NICs the host has */
	const char *direct; /* "on"/"off"; NULL: IONIC_SIM_DIRECT as given */
	const char *provider;
	const char *preload;
	bool installed_provider;
	bool keep_rundir;
	char **cmd;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ionic-sim [options] [--] COMMAND [ARGS...]\n"
		"       ionic-sim cluster ...  (emulated hosts: cluster --help)\n"
		"\n"
		"Run COMMAND against an emulated AMD Pensando ionic RDMA NIC (ionic_0,\n"
		"/dev/infiniband/uverbs0), or several (--nics).  Every process COMMAND\n"
		"starts shares the NICs.\n"
		"\n"
		"Options:\n"
		"  --fabric NAME          fabric to join (default \"default\"); runs on the\n"
		"                         same fabric can reach each other, others cannot\n"
		"  --trace FILE           append a decoded event trace of every process\n"
		"  --pcap FILE            capture every frame the NIC sends and receives\n"
		"                         (Ethernet + IPv4/IPv6 + UDP + RoCEv2, pcap)\n"
		"  --transport unix|udp   how frames travel: abstract unix sockets on this\n"
		"                         host (default), or RoCEv2 in UDP datagrams to\n"
		"                         port 4791 (other network namespaces and hosts)\n"
		"  --addr A.B.C.D         the NIC's IPv4 address (GID 1) with --transport\n"
		"                         udp: an address of this host or namespace\n"
		"                         (default: the first of 127.18.0.1, .2, ...\n"
		"                         whose UDP port 4791 is free); with --nics N\n"
		"                         NIC k gets A+k, or give N addresses A,B,...\n"
		"  --direct on|off        off: every work request crosses the wire and\n"
		"                         the engine applies every doorbell, as\n"
		"                         IONIC_SIM_DIRECT=0 (default: on)\n"
		"  --provider PATH        use this build of the provider (libionic-rdmav<N>.so\n"
		"                         for any libibverbs, its prefix .../libionic, or\n"
		"                         its directory)\n"
		"  --installed-provider   use the provider libibverbs finds on its own\n"
		"  --preload PATH         use this libionic-sim.so\n"
		"  --profile K=V[,K=V..]  set firmware profile values (keys below)\n"
		"  --KEY VALUE, --KEY=VALUE  the same for one key ('-' or '_' in KEY)\n"
		"  --fw-version N         alias of --version (firmware RDMA version)\n"
		"  --phc / --no-phc       offer / hide the PHC clock page\n"
		"  --port-down            report the port DOWN\n"
		"  --no-netlink           no RDMA netlink: libibverbs finds the device\n"
		"                         through sysfs alone (the fallback path)\n"
		"  --fatal-after MS       the device fails MS ms after each process\n"
		"                         opens it (profile fatal_after_ms)\n"
		"  --fatal-trigger        the device fails when the file\n"
		"                         $IONIC_SIM_RUNDIR/" ISIM_FATAL_FILE
		" appears; SIGUSR1\n"
		"                         to ionic-sim creates it (fatal_trigger)\n"
		"  --fatal-reset          a failure is a firmware reset: contexts opened\n"
		"                         afterwards work again (fatal_reset)\n"
		"  --nics N               N NICs (1-8, default 1): ionic_0..ionic_<N-1>,\n"
		"                         uverbs0.., isim0.., each its own fabric node\n"
		"  --keep-rundir          do not delete the run directory (debugging)\n"
		"  -h, --help             this text\n"
		"\n"
		"Profile keys:\n");
	isim_profile_usage(out);
	fprintf(out,
		"\n"
		"Environment given to COMMAND: SYSFS_PATH, LD_PRELOAD, RDMAV_DRIVERS,\n"
		"IONIC_SIM_PROFILE, IONIC_SIM_NODES, IONIC_SIM_NODE, IONIC_SIM_FABRIC,\n"
		"IONIC_SIM_RUNDIR, IONIC_SIM_TRACE, IONIC_SIM_PCAP, IONIC_SIM_TRANSPORT,\n"
		"IONIC_SIM_ADDR,\n"
		"IONIC_SIM_DIRECT.\n"
		"Exit status: COMMAND's, or 128+N if signal N killed it.\n");
}

/* Is 'val' of option --'name' one of its two words?  Says so if not. */
static bool one_of(const char *name, const char *val, const char *a,
		   const char *b)
{
	if (!strcmp(val, a) || !strcmp(val, b))
		return true;
	fprintf(stderr, "ionic-sim: --%s %s or %s\n", name, a, b);
	return false;
}

static int set_key(struct opts *o, const char *key, const char *val)
{
	char spec[256], k[64], bad[64];
	size_t i;

	if (strlen(key) >= sizeof(k))
		return -EINVAL;
	for (i = 0; key[i]; i++)
		k[i] = key[i] == '-' ? '_' : key[i];
	k[i] = 0;
	if (!strcmp(k, "fw_version"))
		strcpy(k, "version");
	if (!strcmp(k, "fatal_after"))
		strcpy(k, "fatal_after_ms");
	snprintf(spec, sizeof(spec), "%s=%s", k, val);
	if (isim_profile_parse(&o->prof, spec, bad, sizeof(bad))) {
		fprintf(stderr, "ionic-sim: bad profile value: %s\n", spec);
		return -EINVAL;
	}
	return 0;
}

static bool fabric_name_ok(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!(*s == '-' || *s == '_' || *s == '.' ||
		      (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z')))
			return false;
	return true;
}

/* 0 ok, 1 help printed, -1 error */
static int parse_args(struct opts *o, int argc, char **argv)
{
	int i;

	isim_profile_defaults(&o->prof);
	o->fabric = "default";
	o->nics = 1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		char name[64];
		size_t nlen;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-')
			break;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		}
		if (strncmp(a, "--", 2)) {
			fprintf(stderr, "ionic-sim: unknown option %s\n", a);
			return -1;
		}
		a += 2;
		eq = strchr(a, '=');
		nlen = eq ? (size_t)(eq - a) : strlen(a);
		if (nlen >= sizeof(name)) {
			fprintf(stderr, "ionic-sim: unknown option --%s\n", a);
			return -1;
		}
		memcpy(name, a, nlen);
		name[nlen] = 0;

		/* flags without a value */
		if (!eq && !strcmp(name, "installed-provider")) {
			o->installed_provider = true;
			continue;
		}
		if (!eq && !strcmp(name, "keep-rundir")) {
			o->keep_rundir = true;
			continue;
		}
		if (!eq && !strcmp(name, "no-phc")) {
			o->prof.phc = false;
			continue;
		}
		if (!eq && !strcmp(name, "phc")) {
			o->prof.phc = true;
			continue;
		}
		if (!eq && !strcmp(name, "port-down")) {
			o->prof.port_up = false;
			continue;
		}
		if (!eq && !strcmp(name, "no-netlink")) {
			o->prof.netlink = false;
			continue;
		}
		if (!eq && !strcmp(name, "fatal-trigger")) {
			o->prof.fatal_trigger = true;
			continue;
		}
		if (!eq && !strcmp(name, "fatal-reset")) {
			o->prof.fatal_reset = true;
			continue;
		}

		if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			fprintf(stderr, "ionic-sim: --%s needs a value\n",
				name);
			return -1;
		}
		if (!strcmp(name, "fabric")) {
			o->fabric = val;
		} else if (!strcmp(name, "trace")) {
			o->trace = val;
		} else if (!strcmp(name, "pcap")) {
			o->pcap = val;
		} else if (!strcmp(name, "transport")) {
			if (!one_of(name, val, "unix", "udp"))
				return -1;
			o->transport = val;
		} else if (!strcmp(name, "addr")) {
			o->addr = val; /* checked once --nics is known */
		} else if (!strcmp(name, "direct")) {
			if (!one_of(name, val, "on", "off"))
				return -1;
			o->direct = val;
		} else if (!strcmp(name, "provider")) {
			o->provider = val;
		} else if (!strcmp(name, "preload")) {
			o->preload = val;
		} else if (!strcmp(name, "profile")) {
			char bad[64] = "";

			if (isim_profile_parse(&o->prof, val, bad,
					       sizeof(bad))) {
				fprintf(stderr,
					"ionic-sim: bad --profile entry '%s'\n",
					bad);
				return -1;
			}
		} else if (!strcmp(name, "nics") || !strcmp(name, "devices")) {
			if (ilaunch_nics_count(val, &o->nics))
				return -1;
		} else if (set_key(o, name, val)) {
			return -1;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "ionic-sim: no command given (try --help)\n");
		return -1;
	}
	if (o->addr && !o->transport)
		o->transport = "udp";
	if (o->addr && strcmp(o->transport, "udp")) {
		fprintf(stderr, "ionic-sim: --addr is for --transport udp\n");
		return -1;
	}
	if (!fabric_name_ok(o->fabric)) {
		fprintf(stderr, "ionic-sim: bad fabric name '%s'\n", o->fabric);
		return -1;
	}
	o->cmd = argv + i;
	return 0;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static void exe_dir(char *out, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", out, len - 1);
	char *slash;

	out[n > 0 ? n : 0] = 0;
	slash = strrchr(out, '/');
	if (slash)
		*slash = 0;
}

static int find_preload(const struct opts *o, char *out, size_t len)
{
	char dir[PATH_MAX];

	if (o->preload) {
		if (!realpath(o->preload, out))
			return -errno;
		return 0;
	}
	exe_dir(dir, sizeof(dir));
	snprintf(out, len, "%s/libionic-sim.so", dir); /* build tree */
	if (exists(out))
		return 0;
	snprintf(out, len, "%s", ILAUNCH_INSTALL_PRELOAD);
	return exists(out) ? 0 : -ENOENT;
}

/* Empty 'out' means: leave provider selection to libibverbs. */
static int find_provider(const struct opts *o, char *out, size_t len)
{
	char dir[PATH_MAX];

	out[0] = 0;
	if (o->installed_provider)
		return 0;
	if (o->provider)
		return ilaunch_provider_prefix(o->provider, out, len);
	exe_dir(dir, sizeof(dir));
	if (!strcmp(dir, ILAUNCH_BUILD_DIR) &&
	    ILAUNCH_BUILD_PROVIDER[0] != '\0')
		return ilaunch_provider_prefix(ILAUNCH_BUILD_PROVIDER, out,
					       len);
	if (ilaunch_provider_exists(ILAUNCH_INSTALL_PROVIDER))
		snprintf(out, len, "%s", ILAUNCH_INSTALL_PROVIDER);
	return 0;
}

static int prepend_env(const char *name, const char *val, const char *sep,
		       bool append)
{
	const char *old = getenv(name);
	char *joined;
	int rc;

	if (!old || !*old)
		return setenv(name, val, 1);
	if (asprintf(&joined, "%s%s%s", append ? old : val, sep,
		     append ? val : old) < 0)
		return -1;
	rc = setenv(name, joined, 1);
	free(joined);
	return rc;
}

static int setup_env(const struct opts *o, const char *rundir,
		     const char *sysfs)
{
	char buf[PATH_MAX + 64], prof[1024];
	int rc = 0;

	rc = find_preload(o, buf, sizeof(buf));
	if (rc) {
		fprintf(stderr, "ionic-sim: libionic-sim.so not found\n");
		return rc;
	}
	/* After any existing entries: sanitizer runtimes insist on being
	 * first, and our symbols still precede libc's. */
	if (prepend_env("LD_PRELOAD", buf, ":", true))
		return -errno;
	rc = find_provider(o, buf, sizeof(buf));
	if (rc) {
		fprintf(stderr, "ionic-sim: bad provider path\n");
		return rc;
	}
	if (buf[0]) {
		if (!ilaunch_provider_exists(buf))
			fprintf(stderr,
				"ionic-sim: warning: no provider %s-rdmav<N>.so\n",
				buf);
		if (prepend_env("RDMAV_DRIVERS", buf, ":", false))
			return -errno;
	}
	if (isim_profile_format(&o->prof, prof, sizeof(prof)))
		return -ENOSPC;
	/* IONIC_SIM_NODE(S) and IONIC_SIM_ADDR: nics.c */
	if (setenv("SYSFS_PATH", sysfs, 1) ||
	    setenv(ISIM_ENV_PROFILE, prof, 1) ||
	    setenv(ISIM_ENV_FABRIC, o->fabric, 1) ||
	    setenv(ISIM_ENV_RUNDIR, rundir, 1))
		return -errno;
	if (o->trace) {
		/* absolute, so commands that chdir still find it */
		int fd = open(o->trace,
			      O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

		if (fd < 0 || !realpath(o->trace, buf)) {
			fprintf(stderr,
				"ionic-sim: cannot open trace file %s: %s\n",
				o->trace, strerror(errno));
			return -errno;
		}
		close(fd);
		if (setenv(ISIM_ENV_TRACE, buf, 1))
			return -errno;
	} else {
		unsetenv(ISIM_ENV_TRACE);
	}
	if (o->pcap) {
		int rc = ifab_pcap_create(o->pcap);

		if (rc || !realpath(o->pcap, buf)) {
			fprintf(stderr,
				"ionic-sim: cannot create capture file %s: %s\n",
				o->pcap, strerror(rc ? -rc : errno));
			return rc ? rc : -errno;
		}
		if (setenv(IFAB_ENV_PCAP, buf, 1))
			return -errno;
	} else {
		unsetenv(IFAB_ENV_PCAP);
	}
	/* without --direct, an IONIC_SIM_DIRECT of the caller's stays */
	if (o->direct &&
	    setenv(ISIM_ENV_DIRECT, strcmp(o->direct, "on") ? "0" : "1", 1))
		return -errno;
	return 0;
}

/* ---- running the command ------------------------------------------------ */

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t pending_sig;
static char fatal_path[PATH_MAX + 32]; /* the device's trigger file */

/* SIGUSR1: create the trigger file that fails the device of every
 * process started with --fatal-trigger (sim/dev/fatal.c). */
static void make_fatal(int sig)
{
	int fd, saved = errno;

	(void)sig;
	if (!fatal_path[0])
		return;
	fd = open(fatal_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	errno = saved;
}

static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (child_pid <= 0) { /* still setting up: do not start at all */
		pending_sig = sig;
		return;
	}
	/* Terminal signals (SI_KERNEL) already reached the whole foreground
	 * process group, the command included; forward only kill()s. */
	if (si->si_code != SI_KERNEL)
		kill(child_pid, sig);
}

/* Installed first thing: a signal that arrives while the run is being set
 * up is remembered, and the command is then not started at all. */
static void catch_signals(void)
{
	static const int fwd[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: waitpid sees EINTR */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaction(fwd[i], &sa, NULL);
	/*
	 * No SA_RESTART either: SIGUSR1 must interrupt waitpid().  Under
	 * ThreadSanitizer the runtime's handler only notes the signal and
	 * runs make_fatal() when the interrupted call returns; a restarted
	 * waitpid() returns when the command exits, and the command waits
	 * for the device failure the file causes (docs/testing.md §6.2).
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = make_fatal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

static int run(char **cmd)
{
	sigset_t block, old;
	int status;
	pid_t pid;

	/* Block the forwarded signals across fork so none can fall between
	 * "child exists" and "child_pid is known". */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (pending_sig) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return 128 + pending_sig;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("ionic-sim: fork");
		sigprocmask(SIG_SETMASK, &old, NULL);
		return 127;
	}
	if (pid == 0) {
		/* exec resets caught signals to their defaults */
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(cmd[0], cmd);
		fprintf(stderr, "ionic-sim: %s: %s\n", cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("ionic-sim: waitpid");
			return 127;
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 127;
}

int main(int argc, char **argv)
{
	char rundir[PATH_MAX], sysfs[PATH_MAX + 8];
	struct opts o = { 0 };
	struct ilaunch_nics nics = { 0 };
	bool udp;
	int rc, status;

	if (argc > 1 && !strcmp(argv[1], "cluster"))
		return ilaunch_cluster(argc - 1, argv + 1);
	catch_signals();
	rc = parse_args(&o, argc, argv);
	if (rc)
		return rc > 0 ? 0 : 2;
	/* Faults without a seed: pick one, so a failure can be replayed
	 * (the same seed makes the same decisions, sim/fabric/fault.c). */
	if (isim_profile_faults(&o.prof) && !o.prof.fault_seed)
		o.prof.fault_seed = ((uint32_t)time(NULL) * 2654435761u) ^
				    (uint32_t)getpid() ^ 1;

	nics.n = o.nics;
	udp = o.transport && !strcmp(o.transport, "udp");
	if (o.addr && ilaunch_nics_addrs(&nics, o.addr))
		return 2;
	if (ilaunch_nics_claim(&nics, o.fabric)) {
		ilaunch_nics_release(&nics, 0);
		return 125;
	}
	/* the relay thread names fabric sockets while this thread still
	 * sets the environment */
	ifab_fix_name(o.fabric);
	/* the NICs' addresses decide GID 1 (sysfs, kernel, device) */
	if (ilaunch_nics_transport(&nics, udp, o.addr != NULL)) {
		ilaunch_nics_release(&nics, 0);
		return 125;
	}
	rc = ilaunch_rundir_create(rundir, sizeof(rundir));
	if (rc) {
		fprintf(stderr, "ionic-sim: cannot create run directory: %s\n",
			strerror(-rc));
		ilaunch_nics_release(&nics, 0);
		return 125;
	}
	/* so that ACK timeouts wait for frames the relays still hold */
	rc = ilaunch_nics_share(&nics, rundir);
	if (rc)
		fprintf(stderr,
			"ionic-sim: cannot share the UDP wire state in %s: %s\n",
			rundir, strerror(-rc));
	snprintf(sysfs, sizeof(sysfs), "%s/sys", rundir);
	snprintf(fatal_path, sizeof(fatal_path), "%s/%s", rundir,
		 ISIM_FATAL_FILE);
	rc = ilaunch_sysfs_write(sysfs, &o.prof, nics.node, nics.n);
	if (rc)
		fprintf(stderr, "ionic-sim: cannot write sysfs tree: %s\n",
			strerror(-rc));
	if (!rc)
		rc = setup_env(&o, rundir, sysfs);
	if (rc) {
		status = 125;
	} else {
		if (isim_trace_enabled())
			isim_trace(
				"RUN",
				"start node=%u nodes=%s fabric=%s rundir=%s cmd=%s",
				nics.node[0], getenv(ISIM_ENV_NODES), o.fabric,
				rundir, o.cmd[0]);
		status = run(o.cmd);
		if (isim_trace_enabled())
			isim_trace("RUN", "exit status=%d", status);
		if (status && isim_profile_faults(&o.prof))
			fprintf(stderr,
				"ionic-sim: %s failed with faults injected, "
				"fault_seed=%u (--fault-seed %u repeats the "
				"decisions)\n",
				o.cmd[0], o.prof.fault_seed, o.prof.fault_seed);
	}
	ilaunch_nics_release(&nics, status);
	fatal_path[0] = 0; /* no trigger file in a directory being removed */
	if (!o.keep_rundir && ilaunch_rundir_remove(rundir))
		fprintf(stderr, "ionic-sim: cannot remove %s\n", rundir);
	return status;
}
