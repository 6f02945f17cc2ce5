/* proto_check: compiled (never run) with NVIDIA's nvml.h force-included and NVML_NO_UNVERSIONED_FUNC_DEFS
 * defined (so nvml.h declares every version by its own name). Each NVML_ENTRY of src/entry_points.def is
 * declared again here with the simulator's prototype: a prototype that differs from nvml.h's is a
 * "conflicting types" error, and a name nvml.h lacks is caught by test/symbol_check.sh. */
#ifndef NVML_API_VERSION
#error "compile with -include nvml.h"
#endif
#define NVML_ENTRY(ret, name, params) ret name params;
#define NVML_ABSENT(group, name)
#include "entry_points.def"
