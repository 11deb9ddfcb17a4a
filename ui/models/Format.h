#pragma once
// Human-readable numbers for tables, the info panel and the status bar (one place so they agree).
#include <QString>

#include <cstdint>
#include <string>
#include <vector>

namespace npuwb {
struct LayerRow;
}

namespace npuwb::ui {

QString formatCount(int64_t value);  // 11.69 M, 1.82 G
QString formatBytes(int64_t bytes);  // 44.6 MiB; a negative difference: "591.9 KiB less"
QString formatMicros(double us);     // 812 µs, 12.4 ms
QString formatShape(const std::vector<int64_t>& shape);      // [1,3,224,224], unknown dims as ?
QString formatShape(const std::vector<std::string>& shape);  // [batch,3,224,224]
QString formatShapes(const std::vector<std::vector<int64_t>>& shapes);  // [1,64,56,56] [64,64,3,3]
/// "24 layers (49 nodes, 25 in fused kernels)" for a run's rows, "49 layers" when nothing was fused.
QString formatLayerCount(const std::vector<LayerRow>& layers);

}  // namespace npuwb::ui
