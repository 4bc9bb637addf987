/* SPDX-License-Identifier: MIT */
/*
 * driver.c - runs a libFuzzer target over files given on the command line
 * (or every file of the directories given), so that the fuzz corpora are
 * regression tests in `make check` without clang's -fsanitize=fuzzer.
 * Built only when not building with libFuzzer.
 */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f) {
		perror(path);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -1;
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned ran = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *e;

			if (!d)
				return 1;
			while ((e = readdir(d))) {
				char p[4096];

				if (e->d_name[0] == '.')
					continue;
				snprintf(p, sizeof(p), "%s/%s", argv[i], e->d_name);
				if (run_file(p))
					return 1;
				ran++;
			}
			closedir(d);
		} else {
			if (run_file(argv[i]))
				return 1;
			ran++;
		}
	}
	printf("%u inputs ran without a crash\n", ran);
	return ran ? 0 : 1;
}
