#pragma once
// One stable color per op type, shared by the layer table and the time chart so both read as one picture.
#include <QColor>
#include <QString>

namespace npuwb::ui {

/// Families that matter for NPU cost get fixed, distinct colors (convolutions blue, matrix products purple,
/// activations green, pooling orange, ...); any other op gets a hue derived from its name, the same every run.
QColor opTypeColor(const QString& opType);

}  // namespace npuwb::ui
