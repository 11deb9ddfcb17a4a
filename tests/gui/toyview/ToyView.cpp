#include "toyview/ToyView.h"

#include <QAction>
#include <QLabel>
#include <QVBoxLayout>

#include "core/ViewRegistry.h"
#include "core/Workbench.h"

namespace npuwb::ui::testing {

NPUWB_GUI_VIEW(ToyView, "toy", QT_TRANSLATE_NOOP("views", "&Toy"), Qt::ALT | Qt::Key_9, 900);

ToyView::ToyView(Workbench& workbench, QWidget* parent)
    : WorkbenchView(workbench, parent), count_(new QLabel(tr("no model"), this)),
      countAction_(new QAction(tr("Count &Nodes"), this)) {
    count_->setObjectName(QStringLiteral("toyCount"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(count_);
    connect(countAction_, &QAction::triggered, this, &ToyView::count);
    connect(&workbench, &Workbench::modelLoaded, this, &ToyView::count);
}

QList<ViewAction> ToyView::viewActions() const {
    return {{.action = countAction_, .menu = MenuSlot::Analyze, .toolBar = ToolBarSlot::Target}};
}

bool ToyView::startFromCommandLine() {
    count();
    emit resultShown();
    return false;  // nothing runs on a worker: done already
}

void ToyView::count() {
    count_->setText(workbench().hasModel() ? tr("%1 nodes").arg(workbench().loadedModel()->summary.nodeCount)
                                           : tr("no model"));
}

}  // namespace npuwb::ui::testing
