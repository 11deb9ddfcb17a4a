#include "models/LayerSelection.h"

namespace npuwb::ui {

void LayerSelection::selectLayer(int id) {
    if (id == selected_) return;
    selected_ = id;
    emit layerSelected(id);
}

}  // namespace npuwb::ui
