#include "models/OpTypeColors.h"

#include <QHash>

namespace npuwb::ui {

QColor opTypeColor(const QString& opType) {
    static const QHash<QString, QColor> fixed = {
        {QStringLiteral("Conv"), QColor(0x1f, 0x77, 0xb4)},
        {QStringLiteral("ConvTranspose"), QColor(0x17, 0xbe, 0xcf)},
        {QStringLiteral("Gemm"), QColor(0x94, 0x67, 0xbd)},
        {QStringLiteral("MatMul"), QColor(0x7b, 0x4f, 0xa8)},
        {QStringLiteral("Relu"), QColor(0x2c, 0xa0, 0x2c)},
        {QStringLiteral("Clip"), QColor(0x55, 0xb8, 0x55)},
        {QStringLiteral("Sigmoid"), QColor(0x8c, 0xc6, 0x3f)},
        {QStringLiteral("MaxPool"), QColor(0xff, 0x7f, 0x0e)},
        {QStringLiteral("AveragePool"), QColor(0xff, 0xa0, 0x4a)},
        {QStringLiteral("GlobalAveragePool"), QColor(0xe8, 0x9a, 0x2c)},
        {QStringLiteral("Add"), QColor(0xd6, 0x27, 0x28)},
        {QStringLiteral("Mul"), QColor(0xe3, 0x77, 0xc2)},
        {QStringLiteral("BatchNormalization"), QColor(0xbc, 0xbd, 0x22)},
        {QStringLiteral("Concat"), QColor(0x8c, 0x56, 0x4b)},
        {QStringLiteral("Reshape"), QColor(0x7f, 0x7f, 0x7f)},
        {QStringLiteral("Flatten"), QColor(0x9a, 0x9a, 0x9a)},
        {QStringLiteral("Transpose"), QColor(0x60, 0x60, 0x60)},
        {QStringLiteral("Softmax"), QColor(0xf0, 0xc0, 0x00)},
    };
    if (auto it = fixed.constFind(opType); it != fixed.constEnd()) return *it;
    // FNV-1a rather than qHash: qHash is seeded per process, colors must not change between runs.
    uint32_t hash = 2166136261u;
    for (QChar c : opType) hash = (hash ^ c.unicode()) * 16777619u;
    return QColor::fromHsv(int(hash % 360), 140 + int((hash >> 9) % 80), 170 + int((hash >> 17) % 60));
}

}  // namespace npuwb::ui
