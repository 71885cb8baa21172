// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * `ionic-sim cluster ...`: emulated hosts joined by an emulated switch,
 * each with its NICs on the UDP wire.  The work is done by the script
 * ionic-sim-cluster (sim/launcher/ionic-sim-cluster.sh, installed beside
 * libionic-sim.so): bringing hosts up and down is a sequence of iproute2,
 * unshare, mount and nsenter steps that reads best as the shell recipe
 * it is.  This only finds the script, tells it which launcher to start
 * for each host (this one) and runs it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"
#include "paths.h"

#define CLUSTER_SCRIPT "ionic-sim-cluster"

int ilaunch_cluster(int argc, char **argv)
{
	char self[PATH_MAX], script[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;
	struct stat st;

	(void)argc;
	if (n <= 0) {
		perror("ionic-sim: /proc/self/exe");
		return 125;
	}
	self[n] = 0;
	slash = strrchr(self, '/');
	/* the build tree has it next to the launcher */
	snprintf(script, sizeof(script), "%.*s/%s", (int)(slash - self), self,
		 CLUSTER_SCRIPT);
	if (stat(script, &st))
		snprintf(script, sizeof(script), "%s", ILAUNCH_INSTALL_CLUSTER);
	if (setenv("IONIC_SIM_CLUSTER_LAUNCHER", self, 1))
		return 125;
	argv[0] = script;
	execv(script, argv);
	fprintf(stderr, "ionic-sim: %s: %s\n", script, strerror(errno));
	return 125;
}
