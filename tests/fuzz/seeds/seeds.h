/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Shared by the seed writers of tests/fuzz/seeds/: one seed file,
 * <dir>/seed-<name>.bin.  A writer that cannot write its seed exits 1.
 */
#ifndef IONIC_FUZZ_SEEDS_H
#define IONIC_FUZZ_SEEDS_H

#include <stdio.h>
#include <stdlib.h>

static inline void fuzz_seed_write(const char *dir, const char *name,
				   const void *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%s.bin", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

#endif /* IONIC_FUZZ_SEEDS_H */
