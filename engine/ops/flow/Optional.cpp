// Optional ops. An optional holding a value is represented by the value itself (tensor or sequence); an empty
// optional is Value::none() carrying its declared element type.
#include "ops/Kernel.h"

namespace npuwb {
namespace {

void optionalOp(KernelContext& ctx) {
    if (ctx.hasInput(0)) {
        ctx.setOutputValue(0, ctx.inputValue(0));
        return;
    }
    const Attribute* type = ctx.node().attribute("type");
    if (!type) ctx.fail("an Optional without input needs the 'type' attribute");
    Value empty = Value::none();
    const ValueType& declared = type->typeProto;
    empty.noneElementType = declared.dtype;
    if (empty.noneElementType == DType::Undefined && declared.element) empty.noneElementType = declared.element->dtype;
    ctx.setOutputValue(0, std::move(empty));
}

void optionalHasElement(KernelContext& ctx) {
    bool has = ctx.hasInput(0) && !ctx.inputValue(0).isNone();
    ctx.setOutput(0, Tensor::scalar<bool>(has));
}

void optionalGetElement(KernelContext& ctx) {
    const Value& v = ctx.inputValue(0);
    if (v.isNone()) ctx.fail("the optional input is empty");
    ctx.setOutputValue(0, v);
}

}  // namespace

NPUWB_KERNEL("Optional", optionalOp);
NPUWB_KERNEL("OptionalHasElement", optionalHasElement);
NPUWB_KERNEL("OptionalGetElement", optionalGetElement);

}  // namespace npuwb
