/* SPDX-License-Identifier: MIT */
/* fuzz_import_blktrace.c - libFuzzer target: the blktrace importer on arbitrary (possibly compressed) input. */
#include "config.h"

#include "tests/fuzz/import_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import("blktrace", data, size);
}
