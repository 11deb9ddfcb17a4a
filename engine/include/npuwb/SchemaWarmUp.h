#pragma once
// ONNX builds its operator schema registry (every op in every opset) on first use: about 7 ms. Shape inference
// runs in a forked child, which would build it again on every load; built once in the parent, on a second
// thread while the model file is parsed, it costs the load nothing and every child inherits it.

namespace npuwb::onnxconv {

/// Starts building the registry on a background thread (once per process; later calls do nothing). The caller
/// must await it before it returns: a process that exits while the thread runs (a file that is not a model)
/// would destroy ONNX's statics under it.
void startSchemaRegistryWarmUp();
/// Waits until the registry is built (building it here if no warm-up was started). Call before forking a child
/// that uses ONNX: a fork in the middle of the build would leave the child waiting on a lock forever.
void awaitSchemaRegistry();

/// Starts the warm-up (when `start`) and awaits it on every way out of the scope: a model load, or a whole program
/// that wants the registry ready by the time it loads a model (npuwb-cli, npuwb).
class SchemaRegistryWarmUpScope {
public:
    explicit SchemaRegistryWarmUpScope(bool start = true) : started_(start) {
        if (started_) startSchemaRegistryWarmUp();
    }
    ~SchemaRegistryWarmUpScope() {
        if (started_) awaitSchemaRegistry();
    }
    SchemaRegistryWarmUpScope(const SchemaRegistryWarmUpScope&) = delete;
    SchemaRegistryWarmUpScope& operator=(const SchemaRegistryWarmUpScope&) = delete;

private:
    bool started_;
};

}  // namespace npuwb::onnxconv
