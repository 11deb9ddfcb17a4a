// A plugin built against another backend interface version: the loader must refuse it with a clear message.
#include "npuwb/sdk/Backend.h"

extern "C" int npuwb_backend_api_version() { return npuwb::kBackendApiVersion + 41; }
extern "C" npuwb::Backend* npuwb_create_backend() { return nullptr; }
