#pragma once
// A view that exists only in tests: it shows the open model's node count. It proves that a view is one folder plus
// one registration: nothing in the window, the menus or the command line names it.
#include "core/WorkbenchView.h"

class QLabel;

namespace npuwb::ui::testing {

class ToyView : public WorkbenchView {
    Q_OBJECT
public:
    ToyView(Workbench& workbench, QWidget* parent);

    QLabel* countLabel() const { return count_; }
    QAction* countAction() const { return countAction_; }
    QList<ViewAction> viewActions() const override;
    bool startFromCommandLine() override;

private:
    void count();

    QLabel* count_;
    QAction* countAction_;
};

}  // namespace npuwb::ui::testing
