#include "core/WorkbenchView.h"

#include "core/Workbench.h"

namespace npuwb::ui {

WorkbenchView::WorkbenchView(Workbench& workbench, QWidget* parent) : QWidget(parent), workbench_(workbench) {}

void WorkbenchView::bringToFront() {
    emit workbench_.viewRequested(this);
}

void WorkbenchView::saveSettings(QSettings& /*settings*/) const {}

void WorkbenchView::restoreSettings(QSettings& /*settings*/) {}

}  // namespace npuwb::ui
