#pragma once
// The bar above the tabs that edits the Workbench's shared LayerFilter: op types (several at once, from the open
// model: OpTypeChooser), target, name and a time range, a Clear button and "N of M layers" while a criterion is set.
// View > Filter Layers (Ctrl+Shift+F) shows and hides it; hiding it keeps the filter. The criteria and whether the
// bar shows are saved in the settings and come back at the next start.
#include <QWidget>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSettings;

namespace npuwb::ui {

class OpTypeChooser;
class Workbench;

class LayerFilterBar : public QWidget {
    Q_OBJECT
public:
    LayerFilterBar(Workbench& workbench, QWidget* parent);

    /// Checkable View-menu action that shows the bar.
    QAction* toggleAction() const { return toggle_; }
    OpTypeChooser* opTypeChooser() const { return opType_; }
    QComboBox* targetCombo() const { return target_; }
    QLineEdit* nameEdit() const { return name_; }
    QLineEdit* minTimeEdit() const { return minTime_; }
    QLineEdit* maxTimeEdit() const { return maxTime_; }
    QPushButton* clearButton() const { return clear_; }
    /// "N of M layers" (empty while the filter is inactive).
    QLabel* countLabel() const { return count_; }

    void saveSettings(QSettings& settings) const;
    /// Sets the shared filter to the saved criteria (op types the next model lacks are dropped when it opens).
    void restoreSettings(QSettings& settings);

private:
    /// Op types of the open model (its layers, or the last run's).
    void fillOpTypes();
    /// Widgets -> filter.
    void apply();
    /// Filter -> widgets (Clear, or another part changed it) and the count.
    void follow();

    Workbench& workbench_;
    QAction* toggle_;
    OpTypeChooser* opType_;
    QComboBox* target_;
    QLineEdit* name_;
    QLineEdit* minTime_;
    QLineEdit* maxTime_;
    QPushButton* clear_;
    QLabel* count_;
    bool following_ = false;
};

}  // namespace npuwb::ui
