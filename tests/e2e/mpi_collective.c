// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * An MPI job whose every rank checks what the collectives gave it
 * (tests/e2e/cluster.sh runs it with one rank per emulated host):
 * MPI_Allgather of the host names (each rank on a host of its own, when
 * asked), MPI_Allreduce of a vector whose sum each rank computes itself,
 * and MPI_Alltoall of blocks whose every word names its sender, receiver
 * and position, in sizes below and above the eager limit.  Prints one line
 * per rank and "collectives verified on N ranks" from rank 0; any wrong
 * word aborts the job (exit status not 0).
 * Usage: mpi_collective [--distinct-hosts]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOST_LEN 64

static int rank, size;

static void fail(const char *what, long at, long got, long want)
{
	fprintf(stderr, "rank %d: %s: word %ld is %ld, expected %ld\n", rank,
		what, at, got, want);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* the word rank 'from' sends to rank 'to' at position i */
static uint32_t word(int from, int to, long i)
{
	return (uint32_t)from << 24 ^ (uint32_t)to << 16 ^
	       (uint32_t)(i * 2654435761u);
}

static void check_hosts(int distinct)
{
	char *all = calloc((size_t)size, HOST_LEN), me[HOST_LEN] = "";

	if (!all)
		MPI_Abort(MPI_COMM_WORLD, 2);
	gethostname(me, sizeof(me) - 1);
	MPI_Allgather(me, HOST_LEN, MPI_CHAR, all, HOST_LEN, MPI_CHAR,
		      MPI_COMM_WORLD);
	if (strcmp(all + (size_t)rank * HOST_LEN, me))
		fail("allgather of host names", rank, 0, 1);
	for (int i = 0; distinct && i < size; i++)
		for (int j = i + 1; j < size; j++)
			if (!strcmp(all + (size_t)i * HOST_LEN,
				    all + (size_t)j * HOST_LEN))
				fail("ranks on distinct hosts", j, i, j);
	free(all);
}

static void check_allreduce(long n)
{
	int64_t *in = malloc(n * sizeof(*in)), *out = malloc(n * sizeof(*out));

	if (!in || !out)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (long i = 0; i < n; i++)
		in[i] = (int64_t)(rank + 1) * (i + 7) - rank;
	MPI_Allreduce(in, out, (int)n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	/* sum over r of (r + 1)(i + 7) - r */
	for (long i = 0; i < n; i++) {
		int64_t s = (int64_t)size * (size + 1) / 2 * (i + 7) -
			    (int64_t)size * (size - 1) / 2;

		if (out[i] != s)
			fail("allreduce", i, (long)out[i], (long)s);
	}
	free(in);
	free(out);
}

static void check_alltoall(long n)
{
	uint32_t *in = malloc(n * size * sizeof(*in));
	uint32_t *out = malloc(n * size * sizeof(*out));

	if (!in || !out)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (int to = 0; to < size; to++)
		for (long i = 0; i < n; i++)
			in[to * n + i] = word(rank, to, i);
	memset(out, 0xa5, n * size * sizeof(*out));
	MPI_Alltoall(in, (int)n, MPI_UINT32_T, out, (int)n, MPI_UINT32_T,
		     MPI_COMM_WORLD);
	for (int from = 0; from < size; from++)
		for (long i = 0; i < n; i++)
			if (out[from * n + i] != word(from, rank, i))
				fail("alltoall", from * n + i,
				     (long)out[from * n + i],
				     (long)word(from, rank, i));
	free(in);
	free(out);
}

int main(int argc, char **argv)
{
	static const long sizes[] = { 1, 100, 4096, 65536 }; /* words */
	char host[HOST_LEN] = "";
	int distinct = argc > 1 && !strcmp(argv[1], "--distinct-hosts");

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	gethostname(host, sizeof(host) - 1);
	check_hosts(distinct);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		check_allreduce(sizes[k]);
		check_alltoall(sizes[k]);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d of %d on %s: allgather, allreduce and alltoall verified\n",
	       rank, size, host);
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("collectives verified on %d ranks\n", size);
	MPI_Finalize();
	return 0;
}
