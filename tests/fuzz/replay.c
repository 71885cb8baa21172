// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The corpus replayer: main() for a fuzz target built without libFuzzer
 * (tests/fuzz/fuzz.h).  Every argument is a file or a directory of files;
 * each file is one input, run once through LLVMFuzzerTestOneInput() in
 * name order.  A finding aborts (FUZZ_CHECK) or is reported by a
 * sanitizer; otherwise the replayer prints how many inputs it ran and
 * exits 0.  An argument that names nothing readable, or a corpus with no
 * input at all, fails: a replay that ran nothing proves nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* libFuzzer calls it once before the first input, if the target has it. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "replay: %s: cannot size it\n", path);
		fclose(f);
		return -1;
	}
	/* one byte more, so an empty input still has a buffer */
	buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "replay: %s: read failed\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Returns the number of inputs run, or -1. */
static int replay_path(const char *path)
{
	struct dirent **ents;
	struct stat st;
	int n, i, ran = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path) ? -1 : 1;

	n = scandir(path, &ents, NULL, by_name);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		char file[4096];

		if (ran >= 0 && ents[i]->d_name[0] != '.') {
			snprintf(file, sizeof(file), "%s/%s", path,
				 ents[i]->d_name);
			if (stat(file, &st) || !S_ISREG(st.st_mode))
				;
			else if (replay_file(file))
				ran = -1;
			else
				ran++;
		}
		free(ents[i]);
	}
	free(ents);
	return ran;
}

int main(int argc, char **argv)
{
	int i, total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		int ran = replay_path(argv[i]);

		if (ran < 0)
			return 1;
		total += ran;
	}
	if (!total) {
		fprintf(stderr, "replay: no input found\n");
		return 1;
	}
	printf("replay: %d inputs, no finding\n", total);
	return 0;
}
