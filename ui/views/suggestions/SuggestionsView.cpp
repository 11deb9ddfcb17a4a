#include "views/suggestions/SuggestionsView.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include "core/OnnxOnlyAction.h"
#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "jobs/AdviseJob.h"
#include "models/Format.h"
#include "models/InputShapes.h"
#include "models/LayerSelection.h"
#include "models/SuggestionTreeModel.h"
#include "npuwb/VendorGuide.h"

namespace npuwb::ui {

NPUWB_GUI_VIEW(SuggestionsView, "suggestions", QT_TRANSLATE_NOOP("views", "&Suggestions"), Qt::ALT | Qt::Key_3, 30);

namespace {
constexpr int kSitesListed = 12;  // in the details of a group; the tree has them all
}

SuggestionsView::SuggestionsView(Workbench& workbench, QWidget* parent)
    : WorkbenchView(workbench, parent), job_(new AdviseJob(this)), adviseAction_(new QAction(tr("&Advise"), this)),
      applyAction_(new QAction(tr("Apply to &This Site"), this)),
      applyAllAction_(new QAction(tr("Apply to A&ll Sites"), this)), model_(new SuggestionTreeModel(this)),
      proxy_(new QSortFilterProxyModel(this)), tree_(new QTreeView(this)), summary_(new QLabel(this)),
      proof_(new QLabel(this)), details_(new QTextBrowser(this)), apply_(new QToolButton(this)),
      applyAll_(new QToolButton(this)) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(SuggestionTreeModel::SortRole);
    tree_->setModel(proxy_);
    tree_->setSortingEnabled(true);
    tree_->sortByColumn(SuggestionTreeModel::GainColumn, Qt::DescendingOrder);
    tree_->setSelectionBehavior(QAbstractItemView::SelectRows);
    tree_->setSelectionMode(QAbstractItemView::ExtendedSelection);  // several sites of a group at once
    tree_->setAlternatingRowColors(true);
    tree_->setUniformRowHeights(true);
    tree_->setWordWrap(false);
    tree_->header()->setSectionResizeMode(QHeaderView::Interactive);
    tree_->header()->setStretchLastSection(true);
    connect(tree_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &SuggestionsView::onCurrentRowChanged);
    connect(tree_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &SuggestionsView::updateActions);
    connect(model_, &QAbstractItemModel::modelReset, this, [this] {
        for (int c = 0; c < SuggestionTreeModel::ColumnCount; ++c) tree_->resizeColumnToContents(c);
        const int maxWidth = fontMetrics().horizontalAdvance(QLatin1Char('x')) * 70;  // tooltip has the rest
        for (int c : {SuggestionTreeModel::HazardColumn, SuggestionTreeModel::NodesColumn})
            tree_->setColumnWidth(c, std::min(tree_->columnWidth(c), maxWidth));
    });
    // A group's sites sit one indentation deeper: their gains must fit too once it is opened.
    connect(tree_, &QTreeView::expanded, this, [this] {
        const int before = tree_->columnWidth(SuggestionTreeModel::GainColumn);
        tree_->resizeColumnToContents(SuggestionTreeModel::GainColumn);
        tree_->setColumnWidth(SuggestionTreeModel::GainColumn,
                              std::max(before, tree_->columnWidth(SuggestionTreeModel::GainColumn)));
    });

    summary_->setWordWrap(true);
    proof_->setObjectName(QStringLiteral("suggestionsProof"));
    proof_->setWordWrap(true);
    proof_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    proof_->hide();
    details_->setOpenLinks(false);
    for (QToolButton* b : {apply_, applyAll_}) b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    auto* top = new QHBoxLayout;
    top->addWidget(summary_, 1);
    top->addWidget(apply_);
    top->addWidget(applyAll_);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(tree_);
    splitter->addWidget(details_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(proof_);
    layout->addWidget(splitter, 1);
    clear(tr("Open a model, pick a chip and press Advise (F7)"));

    adviseAction_->setShortcut(Qt::Key_F7);
    adviseAction_->setToolTip(tr("Find what slows the model down on the chosen chip (F7)"));
    connect(adviseAction_, &QAction::triggered, this, &SuggestionsView::startAdvise);
    applyAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    applyAction_->setToolTip(tr("Rewrite only the selected site(s) with the finding's pass, proven numerically "
                                "(Ctrl+Return)"));
    connect(applyAction_, &QAction::triggered, this, &SuggestionsView::applySelectedFinding);
    applyAllAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Return));
    applyAllAction_->setToolTip(tr("Rewrite every site of the selected group with its pass, proven numerically "
                                   "(Ctrl+Shift+Return)"));
    connect(applyAllAction_, &QAction::triggered, this, &SuggestionsView::applyToAllSites);
    apply_->setDefaultAction(applyAction_);
    applyAll_->setDefaultAction(applyAllAction_);
    tree_->setContextMenuPolicy(Qt::ActionsContextMenu);  // the window adds Copy in front of these
    tree_->addAction(applyAction_);
    tree_->addAction(applyAllAction_);

    workbench.trackJob(job_);
    connect(job_, &AdviseJob::finished, this, &SuggestionsView::onFinished);
    connect(job_, &AdviseJob::failed, this, [this](const QString& message) {
        this->workbench().hideProgress();
        this->workbench().reportError(tr("Advice failed"), message);
    });
    connect(&workbench, &Workbench::stateChanged, this, &SuggestionsView::updateActions);
    connect(this, &SuggestionsView::currentFindingChanged, this, &SuggestionsView::updateActions);
    connect(&workbench, &Workbench::modelLoaded, this, [this] {
        proof_->hide();
        clear(this->workbench().hasCompiledModel()
                  ? tr("Advise %1 (open the ONNX model it was converted from)").arg(onnxOnlyReason())
                  : tr("Pick a chip and press Advise (F7)"));
    });
    connect(&workbench, &Workbench::modelChanged, this, &SuggestionsView::onModelChanged);
    connect(this, &SuggestionsView::nodesClicked, workbench.selection(), &LayerSelection::selectNodes);
    updateActions();
}

QList<ViewAction> SuggestionsView::viewActions() const {
    return {{.action = adviseAction_, .menu = MenuSlot::Analyze, .toolBar = ToolBarSlot::Target},
            {.action = applyAction_, .menu = MenuSlot::Analyze},
            {.action = applyAllAction_, .menu = MenuSlot::Analyze}};
}

bool SuggestionsView::startFromCommandLine() {
    startAdvise();
    return job_->isRunning();
}

void SuggestionsView::updateActions() {
    const bool ready = workbench().hasModel() && !workbench().isBusy();
    enableOnnxAction(adviseAction_, workbench(), ready);
    const int one = sitesToApply(false).size(), all = sitesToApply(true).size();
    enableOnnxAction(applyAction_, workbench(), ready && one > 0);
    enableOnnxAction(applyAllAction_, workbench(), ready && all > 0);
    applyAction_->setText(one > 1 ? tr("Apply to %1 Selected Sites").arg(one) : tr("Apply to &This Site"));
    applyAllAction_->setText(all > 1 ? tr("Apply to A&ll %1 Sites").arg(all) : tr("Apply to A&ll Sites"));
}

void SuggestionsView::startAdvise() {
    if (!workbench().hasOnnxModel() || workbench().isBusy()) return;  // a compiled model has no graph to advise on
    workbench().afterInputShapes([this] {  // symbolic input dims: asks for sizes first
        if (workbench().hasOnnxModel() && !workbench().isBusy()) start();
    });
}

void SuggestionsView::start() {
    if (job_->isRunning()) return;
    workbench().showProgress(0, 0);
    workbench().setStatus(tr("Advising for %1 …").arg(workbench().target().chip));
    advised_ = workbench().currentModel();
    advisedShapes_ = workbench().inputShapes();
    job_->start(advised_, workbench().target(), advisedShapes_);
}

QString SuggestionsView::allPassesText(const advisor::PassesGain& all) {
    // The gains of single findings overlap: only applying them together says what they give together.
    if (all.passes.empty()) return {};
    if (!all.error.empty()) return tr(" · applying every fixing pass failed on a copy");
    return tr(" · applying all %n fixing pass(es): %1 → %2", nullptr, int(all.passes.size()))
        .arg(formatMicros(all.beforeUs), formatMicros(all.afterUs));
}

void SuggestionsView::onFinished(std::shared_ptr<const std::vector<advisor::Finding>> findings,
                                 const advisor::PassesGain& allPasses) {
    if (advised_ != workbench().currentModel()) {  // the model changed (undo, redo) while it ran: advise on that one
        if (workbench().hasOnnxModel()) start();
        return;
    }
    int fixable = 0;
    for (const advisor::Finding& f : *findings) fixable += f.pass.empty() ? 0 : 1;
    const TargetOptions target = workbench().target();
    setFindings(*findings, {});
    // One line: a wrapped label above the proof line gets clipped at 1400x900. The buttons' tooltips say the keys.
    summary_->setText(tr("%1 finding(s) in %2 group(s) for %3 (%4, %5 core(s)); a pass can fix %6 site(s)")
                               .arg(findings->size())
                               .arg(model_->groups().size())
                               .arg(target.chip, target.dtype)
                               .arg(target.cores)
                               .arg(fixable) +  // after setFindings: the groups are the model's
                      (advisedShapes_.empty() ? QString() : QStringLiteral(" · ") + inputShapesText(advisedShapes_)) +
                      allPassesText(allPasses));
    workbench().setStatus(tr("%1 finding(s)").arg(findings->size()));
    workbench().hideProgress();
    emit adviceShown(findings);
    emit resultShown();
}

void SuggestionsView::onModelChanged() {
    // The findings described the old graph (node names may be gone): recompute what was shown. The proof of what
    // changed it stays on screen.
    const QString edit = workbench().lastEditText();
    proof_->setText(edit);
    proof_->setVisible(!edit.isEmpty());
    const bool hadAdvice = !model_->findings().empty();
    clear(tr("The model changed: press Advise (F7) again"));
    if (hadAdvice) start();
}

QStringList SuggestionsView::sitesToApply(bool allSites) const {
    const QModelIndex current = proxy_->mapToSource(tree_->currentIndex());
    if (!current.isValid()) return {};
    const QList<int> currentSites = current.data(SuggestionTreeModel::SiteIndicesRole).value<QList<int>>();
    if (currentSites.isEmpty()) return {};
    const std::string pass = model_->findings()[size_t(currentSites.front())].pass;
    if (pass.empty()) return {};
    QList<int> sites;
    if (allSites) {
        const QModelIndex group = current.parent().isValid() ? current.parent() : current;
        sites = group.data(SuggestionTreeModel::SiteIndicesRole).value<QList<int>>();
    } else {
        if (currentSites.size() != 1) return {};  // a group of several: that is Apply to All Sites
        for (const QModelIndex& row : tree_->selectionModel()->selectedRows()) {
            const QList<int> s =
                proxy_->mapToSource(row).data(SuggestionTreeModel::SiteIndicesRole).value<QList<int>>();
            if (s.size() == 1 && model_->findings()[size_t(s.front())].pass == pass) sites << s.front();
        }
        if (!sites.contains(currentSites.front())) sites << currentSites.front();
    }
    QStringList anchors;  // a match is named by its anchor node (OptimizerOptions::onlyAt)
    for (int i : sites) {
        const advisor::Finding& f = model_->findings()[size_t(i)];
        const QString anchor = QString::fromStdString(f.passAnchor.empty() && !f.nodes.empty() ? f.nodes.front()
                                                                                                : f.passAnchor);
        if (!anchor.isEmpty() && !anchors.contains(anchor)) anchors << anchor;
    }
    return anchors;
}

void SuggestionsView::apply(bool allSites) {
    const QStringList anchors = sitesToApply(allSites);
    const QModelIndex current = proxy_->mapToSource(tree_->currentIndex());
    const QList<int> sites = current.data(SuggestionTreeModel::SiteIndicesRole).value<QList<int>>();
    if (anchors.isEmpty() || sites.isEmpty()) return;
    workbench().applyPass(QString::fromStdString(model_->findings()[size_t(sites.front())].pass), anchors);
}

void SuggestionsView::applySelectedFinding() {
    apply(false);
}

void SuggestionsView::applyToAllSites() {
    apply(true);
}

void SuggestionsView::setFindings(std::vector<advisor::Finding> findings, const QString& summary) {
    model_->setFindings(std::move(findings));
    summary_->setText(summary);
    details_->clear();
    emit currentFindingChanged();
    // The top group (largest gain) is what the user reads first: show its sites and details right away.
    if (proxy_->rowCount() > 0) {
        tree_->expand(proxy_->index(0, 0));
        tree_->selectionModel()->setCurrentIndex(proxy_->index(0, 0),
                                                 QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
}

void SuggestionsView::clear(const QString& hint) {
    setFindings({}, hint);
}

QList<int> SuggestionsView::currentSites() const {
    const QModelIndex current = tree_->currentIndex();
    return current.isValid() ? current.data(SuggestionTreeModel::SiteIndicesRole).value<QList<int>>() : QList<int>{};
}

const advisor::Finding* SuggestionsView::currentFinding() const {
    const QList<int> sites = currentSites();
    if (sites.size() != 1) return nullptr;
    return &model_->findings()[size_t(sites.front())];
}

void SuggestionsView::selectFinding(int index) {
    const QModelIndex row = proxy_->mapFromSource(model_->siteIndex(index));
    if (!row.isValid()) return;
    tree_->expand(row.parent());
    tree_->selectionModel()->setCurrentIndex(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void SuggestionsView::selectGroup(int group) {
    const QModelIndex row = proxy_->mapFromSource(model_->groupIndex(group));
    if (row.isValid())
        tree_->selectionModel()->setCurrentIndex(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

QString SuggestionsView::detailsHtml(const QList<int>& sites) const {
    const advisor::Finding& f = model_->findings()[size_t(sites.front())];
    const QString section = f.guideSection.empty()
                                ? QString()
                                : QStringLiteral(", %1").arg(QString::fromStdString(citeVendorGuide(f.guideSection)));
    if (sites.size() > 1) {
        double gain = 0;
        for (int i : sites) gain += model_->findings()[size_t(i)].estimatedGainUs;
        QString html = tr("<p><b>%1</b>%2: %3 sites, estimated gain %4 µs in all</p><p><b>Mitigation:</b> %5</p><ul>")
                           .arg(QString::fromStdString(f.rule).toHtmlEscaped(), section)
                           .arg(sites.size())
                           .arg(gain, 0, 'f', 1)
                           .arg(QString::fromStdString(f.mitigation).toHtmlEscaped());
        for (int k = 0; k < sites.size() && k < kSitesListed; ++k)
            html += QStringLiteral("<li>%1</li>")
                        .arg(QString::fromStdString(model_->findings()[size_t(sites[k])].hazard).toHtmlEscaped());
        if (sites.size() > kSitesListed)
            html += tr("<li>… %1 more (expand the group)</li>").arg(sites.size() - kSitesListed);
        return html + QStringLiteral("</ul>");
    }
    QString html = QStringLiteral("<p><b>%1</b> (%2%3)</p><p>%4</p><p><b>Mitigation:</b> %5</p>")
                       .arg(QString::fromStdString(f.rule).toHtmlEscaped(),
                            QString::fromStdString(f.severity).toHtmlEscaped(), section,
                            QString::fromStdString(f.hazard).toHtmlEscaped(),
                            QString::fromStdString(f.mitigation).toHtmlEscaped());
    if (!f.evidence.empty()) {
        html += QStringLiteral("<p><b>Evidence:</b> ");
        QStringList items;
        for (const advisor::Evidence& e : f.evidence)
            items << QStringLiteral("%1 = %2%3").arg(QString::fromStdString(e.label).toHtmlEscaped())
                         .arg(e.value, 0, 'g', 6)
                         .arg(e.unit.empty() ? QString() : QLatin1Char(' ') + QString::fromStdString(e.unit));
        html += items.join(QStringLiteral(" · ")) + QStringLiteral("</p>");
    }
    return html + QStringLiteral("<p><b>Nodes:</b> %1</p>")
                      .arg(SuggestionTreeModel::nodesOf(f).join(QStringLiteral(", ")).toHtmlEscaped());
}

void SuggestionsView::onCurrentRowChanged() {
    const QList<int> sites = currentSites();
    emit currentFindingChanged();
    if (sites.isEmpty()) {
        details_->clear();
        return;
    }
    details_->setHtml(detailsHtml(sites));
    emit nodesClicked(model_->nodesOf(sites));
}

}  // namespace npuwb::ui
