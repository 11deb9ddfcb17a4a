#pragma once
// The Suggestions tab: Advise (F7) runs the advisor for the chosen chip on a worker; its findings grouped by rule
// and fixing pass (site count, summed gain), largest gain first; the chosen row's evidence and mitigation; and for
// findings a pass can fix, Apply to This Site (Ctrl+Return: the selected sites only) and Apply to All Sites
// (Ctrl+Shift+Return: every site of the group). The pass rewrites only those sites (OptimizerOptions::onlyAt), with
// its numerical proof, on the undo stack; the proof stays shown above the tree. Picking a row selects its nodes in
// every view through the shared selection.
#include <QList>
#include <QStringList>

#include <map>
#include <memory>
#include <vector>

#include "core/WorkbenchView.h"
#include "npuwb/Advisor.h"

class QLabel;
class QSortFilterProxyModel;
class QTreeView;
class QTextBrowser;
class QToolButton;

namespace npuwb::ui {

class AdviseJob;
class SuggestionTreeModel;

class SuggestionsView : public WorkbenchView {
    Q_OBJECT
public:
    SuggestionsView(Workbench& workbench, QWidget* parent);

    QAction* adviseAction() const { return adviseAction_; }
    /// Apply to This Site: the fixing pass at the selected site rows (of the current row's pass) only.
    QAction* applyAction() const { return applyAction_; }
    /// Apply to All Sites: the fixing pass at every site of the current row's group.
    QAction* applyAllAction() const { return applyAllAction_; }
    QList<ViewAction> viewActions() const override;
    bool startFromCommandLine() override;

    void setFindings(std::vector<advisor::Finding> findings, const QString& summary);
    void clear(const QString& hint);

    SuggestionTreeModel* model() const { return model_; }
    QSortFilterProxyModel* proxyModel() const { return proxy_; }
    QTreeView* treeView() const { return tree_; }
    QLabel* proofLabel() const { return proof_; }
    /// The line above the tree: counts, target and the input shapes the advice used.
    QLabel* summaryLabel() const { return summary_; }
    /// The finding of the current row (a site, or a group of one site), nullptr when none.
    const advisor::Finding* currentFinding() const;
    /// The findings the current row stands for (a group: all its sites).
    QList<int> currentSites() const;
    /// Selects the row showing findings()[index] (tests, and the window after a reload).
    void selectFinding(int index);
    /// Selects group row `group` of model()->groups().
    void selectGroup(int group);
    /// The anchor nodes Apply to This Site / Apply to All Sites would rewrite at ({} when it does not apply).
    QStringList sitesToApply(bool allSites) const;

public slots:
    /// Advises on the current model for the workbench's target (ignored while busy).
    void startAdvise();
    /// Runs the current row's fixing pass with its proof at the selected sites only, on the undo stack.
    void applySelectedFinding();
    /// Runs it at every site of the current row's group.
    void applyToAllSites();

signals:
    void nodesClicked(const QStringList& names);
    void currentFindingChanged();
    void adviceShown(std::shared_ptr<const std::vector<advisor::Finding>> findings);

private:
    void start();
    void onFinished(std::shared_ptr<const std::vector<advisor::Finding>> findings,
                    const advisor::PassesGain& allPasses);
    static QString allPassesText(const advisor::PassesGain& all);
    void onModelChanged();
    void onCurrentRowChanged();
    void updateActions();
    void apply(bool allSites);
    QString detailsHtml(const QList<int>& sites) const;

    AdviseJob* job_;
    QAction* adviseAction_;
    QAction* applyAction_;
    QAction* applyAllAction_;
    SuggestionTreeModel* model_;
    QSortFilterProxyModel* proxy_;
    QTreeView* tree_;
    QLabel* summary_;
    QLabel* proof_;
    QTextBrowser* details_;
    QToolButton* apply_;
    QToolButton* applyAll_;
    std::shared_ptr<const Model> advised_;  // what the running or last advice was on
    std::map<std::string, Shape> advisedShapes_;  // the sizes of its symbolic input dims (empty: as declared)
};

}  // namespace npuwb::ui
