#include "models/OpTypeColors.h"

#include <QHash>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace npuwb::ui {

namespace {

// Colours nearer than this are re-assigned: they read as one in a legend swatch or a thin bar.
constexpr double kMinDistance = 22.0;

const QHash<QString, QColor>& usualColours() {
    static const QHash<QString, QColor> usual = {
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
    return usual;
}

// Kelly's colours of maximum contrast (without white and black) then Tableau's: most distinct first.
constexpr std::array<QRgb, 32> kDistinct = {
    0xf3c300, 0x875692, 0xf38400, 0xa1caf1, 0xbe0032, 0xc2b280, 0x848482, 0x008856, 0xe68fac, 0x0067a5, 0xf99379,
    0x604e97, 0xf6a600, 0xb3446c, 0xdcd300, 0x882d17, 0x8db600, 0x654522, 0xe25822, 0x2b3d26, 0x4e79a7, 0xf28e2b,
    0xe15759, 0x76b7b2, 0x59a14f, 0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac, 0x17becf, 0x393b79};

struct Palette {
    QHash<QString, QColor> colours;
    std::vector<QColor> used;

    void clear() {
        colours.clear();
        used.clear();
    }
    double nearest(const QColor& c) const {
        double best = std::numeric_limits<double>::infinity();
        for (const QColor& u : used) best = std::min(best, colourDistance(c, u));
        return best;
    }
    QColor assign(const QString& op) {
        const QString bare = op.mid(op.lastIndexOf(QLatin1Char('.')) + 1);  // "com.microsoft.Gelu" -> "Gelu"
        QColor chosen;
        if (const auto usual = usualColours().constFind(bare);
            usual != usualColours().constEnd() && nearest(*usual) >= kMinDistance)
            chosen = *usual;
        if (!chosen.isValid()) {  // the first distinct colour far enough from all in use, else the farthest one
            double farthest = -1;
            for (const QRgb rgb : kDistinct) {
                const QColor c(rgb);
                const double d = nearest(c);
                if (d >= kMinDistance) {
                    chosen = c;
                    break;
                }
                if (d > farthest) {
                    farthest = d;
                    chosen = c;
                }
            }
        }
        used.push_back(chosen);
        colours.insert(op, chosen);
        if (bare != op) colours.insert(bare, chosen);
        return chosen;
    }
};

Palette& palette() {
    static Palette p;
    return p;
}

std::array<double, 3> lab(const QColor& c) {
    auto linear = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    const double r = linear(c.redF()), g = linear(c.greenF()), b = linear(c.blueF());
    // sRGB (D65) to XYZ, normalised by the white point.
    const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

}  // namespace

double colourDistance(const QColor& a, const QColor& b) {
    const auto p = lab(a), q = lab(b);
    return std::sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
}

QString colourLegendHtml(const std::vector<std::pair<QString, QColor>>& entries) {
    QString html;
    for (const auto& [text, colour] : entries)
        html += QStringLiteral(" &nbsp;<span style=\"white-space:nowrap\"><span style=\"color:%1\">&#9632;</span>"
                               "&nbsp;%2</span>")
                    .arg(colour.name(), text.toHtmlEscaped());
    return html;
}

QColor readableTextOn(const QColor& fill) {
    auto linear = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    const double luminance =
        0.2126 * linear(fill.redF()) + 0.7152 * linear(fill.greenF()) + 0.0722 * linear(fill.blueF());
    // Equal contrast against both at about 0.18 (WCAG's contrast ratio).
    return luminance > 0.18 ? QColor(Qt::black) : QColor(Qt::white);
}

void useOpTypesOfModel(const std::vector<std::pair<QString, long long>>& opCounts) {
    auto ordered = opCounts;
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    Palette& p = palette();
    p.clear();
    for (const auto& [op, count] : ordered)
        if (!p.colours.contains(op)) p.assign(op);
}

QColor opTypeColor(const QString& opType) {
    Palette& p = palette();
    if (const auto it = p.colours.constFind(opType); it != p.colours.constEnd()) return *it;
    return p.assign(opType);  // an op the model did not list (a runtime's fused kernel): distinct from the rest
}

}  // namespace npuwb::ui
