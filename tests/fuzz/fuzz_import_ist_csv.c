/* SPDX-License-Identifier: MIT */
/* fuzz_import_ist_csv.c - libFuzzer target: the ist-csv importer on arbitrary (possibly compressed) input. */
#include "config.h"

#include "tests/fuzz/import_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import("ist-csv", data, size);
}
