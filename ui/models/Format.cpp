#include "models/Format.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <cmath>

#include "npuwb/Report.h"

namespace npuwb::ui {

namespace {
QString scaled(double value, const char* const* units, int unitCount, double step, int decimals) {
    int unit = 0;
    while (std::abs(value) >= step && unit + 1 < unitCount) {
        value /= step;
        ++unit;
    }
    const int digits = unit == 0 ? 0 : decimals;
    return QString::number(value, 'f', digits) + QString::fromUtf8(units[unit]);
}
}  // namespace

QString formatCount(int64_t value) {
    static const char* const units[] = {"", " k", " M", " G", " T"};
    return scaled(double(value), units, 5, 1000.0, 2);
}

QString formatBytes(int64_t bytes) {
    static const char* const units[] = {" B", " KiB", " MiB", " GiB", " TiB"};
    // A size is never negative: a negative figure is a difference, and "-591.9 KiB" reads as a broken size.
    if (bytes < 0)
        return QCoreApplication::translate("Format", "%1 less").arg(scaled(-double(bytes), units, 5, 1024.0, 1));
    return scaled(double(bytes), units, 5, 1024.0, 1);
}

QString formatMicros(double us) {
    if (us < 1000.0) return QString::number(us, 'f', us < 10.0 ? 2 : 1) + QStringLiteral(" µs");
    if (us < 1e6) return QString::number(us / 1000.0, 'f', 2) + QStringLiteral(" ms");
    return QString::number(us / 1e6, 'f', 2) + QStringLiteral(" s");
}

QString formatShape(const std::vector<int64_t>& shape) {
    QStringList dims;
    for (int64_t d : shape) dims << (d < 0 ? QStringLiteral("?") : QString::number(d));
    return QLatin1Char('[') + dims.join(QLatin1Char(',')) + QLatin1Char(']');
}

QString formatShape(const std::vector<std::string>& shape) {
    QStringList dims;
    for (const auto& d : shape) dims << (d.empty() ? QStringLiteral("?") : QString::fromStdString(d));
    return QLatin1Char('[') + dims.join(QLatin1Char(',')) + QLatin1Char(']');
}

QString formatShapes(const std::vector<std::vector<int64_t>>& shapes) {
    QStringList parts;
    for (const auto& s : shapes) parts << formatShape(s);
    return parts.join(QLatin1Char(' '));
}

QString formatLayerCount(const std::vector<LayerRow>& layers) {
    const auto folded =
        std::count_if(layers.begin(), layers.end(), [](const LayerRow& l) { return !l.fusedInto.empty(); });
    if (folded == 0) return QCoreApplication::translate("Format", "%n layer(s)", nullptr, int(layers.size()));
    return QCoreApplication::translate("Format", "%1 layers (%2 nodes, %3 in fused kernels)")
        .arg(qsizetype(layers.size()) - folded)
        .arg(layers.size())
        .arg(folded);
}

}  // namespace npuwb::ui
