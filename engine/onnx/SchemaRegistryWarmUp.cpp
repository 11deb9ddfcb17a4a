#include "npuwb/SchemaWarmUp.h"

#include <onnx/defs/schema.h>

#include <future>
#include <mutex>

namespace npuwb::onnxconv {

namespace {

void buildRegistry() {
    // Instance() is cheap; the first schema lookup builds the map of all schemas.
    (void)onnx::OpSchemaRegistry::Schema("Conv", 11, "");
}

std::mutex warmUpMutex;
std::shared_future<void> warmUp;  // guarded by warmUpMutex

}  // namespace

void startSchemaRegistryWarmUp() {
    std::lock_guard lock(warmUpMutex);
    if (!warmUp.valid()) warmUp = std::async(std::launch::async, buildRegistry).share();
}

void awaitSchemaRegistry() {
    std::shared_future<void> pending;
    {
        std::lock_guard lock(warmUpMutex);
        pending = warmUp;
    }
    if (pending.valid()) pending.wait();
    else buildRegistry();
}

}  // namespace npuwb::onnxconv
