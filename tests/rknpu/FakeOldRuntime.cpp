// A model-runtime plugin built against another interface version: the loader must refuse it with a clear message.
#include "npuwb/sdk/ModelRuntime.h"

extern "C" int npuwb_runtime_api_version() { return npuwb::kModelRuntimeApiVersion + 41; }
extern "C" npuwb::ModelRuntime* npuwb_create_runtime() { return nullptr; }
