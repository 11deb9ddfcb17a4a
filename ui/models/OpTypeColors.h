#pragma once
// One colour per op type, the same in every view (table, charts, graph, timeline, model panel) so they read as one
// picture, and distinct within the open model: no two of its op types share a hue a reader could confuse.
#include <QColor>
#include <QString>

#include <utility>
#include <vector>

namespace npuwb::ui {

/// The colour of `opType` (with or without its domain): the open model's palette entry, else one given on first
/// use that stays distinct from those already handed out. GUI thread only.
QColor opTypeColor(const QString& opType);

/// Builds the palette for a model's op types, most frequent first: families that matter for NPU cost keep their
/// usual colours (convolutions blue, matrix products purple, Add red, ...) unless a more frequent op already holds a
/// colour too close to it; every other op type gets the most distinct colour left.
void useOpTypesOfModel(const std::vector<std::pair<QString, long long>>& opCounts);

/// Legend entries as rich text: a colour swatch and its text each, lines breaking between entries only.
QString colourLegendHtml(const std::vector<std::pair<QString, QColor>>& entries);

/// Black or white, whichever reads better on `fill` (by relative luminance: yellow takes black, blue white).
QColor readableTextOn(const QColor& fill);

/// CIE76 difference of two colours in L*a*b* (about 2.3: just noticeable; under 20 easily confused in small marks).
double colourDistance(const QColor& a, const QColor& b);

}  // namespace npuwb::ui
