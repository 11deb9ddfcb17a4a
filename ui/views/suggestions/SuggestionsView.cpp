#include "views/suggestions/SuggestionsView.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/OnnxOnlyAction.h"
#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "jobs/AdviseJob.h"
#include "models/LayerSelection.h"
#include "models/SuggestionTableModel.h"
#include "npuwb/VendorGuide.h"

namespace npuwb::ui {

NPUWB_GUI_VIEW(SuggestionsView, "suggestions", QT_TRANSLATE_NOOP("views", "&Suggestions"), Qt::ALT | Qt::Key_3, 30);

SuggestionsView::SuggestionsView(Workbench& workbench, QWidget* parent)
    : WorkbenchView(workbench, parent), job_(new AdviseJob(this)), adviseAction_(new QAction(tr("&Advise"), this)),
      applyAction_(new QAction(tr("A&pply Fix"), this)), model_(new SuggestionTableModel(this)), proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView(this)), summary_(new QLabel(this)), details_(new QTextBrowser(this)),
      apply_(new QToolButton(this)) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(SuggestionTableModel::SortRole);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(SuggestionTableModel::GainColumn, Qt::DescendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table_->horizontalHeader()->setStretchLastSection(true);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &SuggestionsView::onCurrentRowChanged);
    connect(model_, &QAbstractItemModel::modelReset, this, [this] {
        table_->resizeColumnsToContents();
        const int maxWidth = fontMetrics().horizontalAdvance(QLatin1Char('x')) * 70;  // tooltip has the rest
        for (int c : {SuggestionTableModel::HazardColumn, SuggestionTableModel::NodesColumn})
            table_->setColumnWidth(c, std::min(table_->columnWidth(c), maxWidth));
    });

    apply_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    summary_->setWordWrap(true);
    details_->setOpenLinks(false);
    auto* top = new QHBoxLayout;
    top->addWidget(summary_, 1);
    top->addWidget(apply_);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(table_);
    splitter->addWidget(details_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);
    clear(tr("Open a model, pick a chip and press Advise (F7)"));

    adviseAction_->setShortcut(Qt::Key_F7);
    adviseAction_->setToolTip(tr("Find what slows the model down on the chosen chip (F7)"));
    connect(adviseAction_, &QAction::triggered, this, &SuggestionsView::startAdvise);
    applyAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    applyAction_->setToolTip(tr("Run the selected finding's pass with its numerical proof (Ctrl+Return)"));
    connect(applyAction_, &QAction::triggered, this, &SuggestionsView::applySelectedFinding);
    apply_->setDefaultAction(applyAction_);

    workbench.trackJob(job_);
    connect(job_, &AdviseJob::finished, this, &SuggestionsView::onFinished);
    connect(job_, &AdviseJob::failed, this, [this](const QString& message) {
        this->workbench().hideProgress();
        this->workbench().reportError(tr("Advice failed"), message);
    });
    connect(&workbench, &Workbench::stateChanged, this, &SuggestionsView::updateActions);
    connect(this, &SuggestionsView::currentFindingChanged, this, &SuggestionsView::updateActions);
    connect(&workbench, &Workbench::modelLoaded, this, [this] {
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
            {.action = applyAction_, .menu = MenuSlot::Analyze}};
}

bool SuggestionsView::startFromCommandLine() {
    startAdvise();
    return job_->isRunning();
}

void SuggestionsView::updateActions() {
    const bool ready = workbench().hasModel() && !workbench().isBusy();
    enableOnnxAction(adviseAction_, workbench(), ready);
    const advisor::Finding* finding = currentFinding();
    enableOnnxAction(applyAction_, workbench(), ready && finding && !finding->pass.empty());
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
    job_->start(workbench().currentModel(), workbench().target(), workbench().inputShapes());
}

void SuggestionsView::onFinished(std::shared_ptr<const std::vector<advisor::Finding>> findings) {
    int fixable = 0;
    for (const advisor::Finding& f : *findings) fixable += f.pass.empty() ? 0 : 1;
    const TargetOptions target = workbench().target();
    setFindings(*findings, tr("%1 finding(s) for %2 (%3, %4 core(s)); %5 can be fixed by a pass: select one and press "
                              "Apply (Ctrl+Return)")
                               .arg(findings->size())
                               .arg(target.chip, target.dtype)
                               .arg(target.cores)
                               .arg(fixable));
    workbench().setStatus(tr("%1 finding(s)").arg(findings->size()));
    workbench().hideProgress();
    emit adviceShown(findings);
    emit resultShown();
}

void SuggestionsView::onModelChanged() {
    // The findings described the old graph (node names may be gone): recompute what was shown.
    const bool hadAdvice = !model_->findings().empty();
    clear(tr("The model changed: press Advise (F7) again"));
    if (hadAdvice) start();
}

void SuggestionsView::applySelectedFinding() {
    const advisor::Finding* finding = currentFinding();
    if (!finding || finding->pass.empty()) return;
    workbench().applyPass(QString::fromStdString(finding->pass));
}

void SuggestionsView::setFindings(std::vector<advisor::Finding> findings, const QString& summary) {
    model_->setFindings(std::move(findings));
    summary_->setText(summary);
    details_->clear();
    emit currentFindingChanged();
    // The top finding (largest gain) is what the user reads first: show its details right away.
    if (proxy_->rowCount() > 0)
        table_->selectionModel()->setCurrentIndex(proxy_->index(0, 0),
                                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void SuggestionsView::clear(const QString& hint) {
    setFindings({}, hint);
}

const advisor::Finding* SuggestionsView::currentFinding() const {
    const QModelIndex current = table_->currentIndex();
    if (!current.isValid()) return nullptr;
    const int index = current.data(SuggestionTableModel::FindingIndexRole).toInt();
    return index >= 0 && index < int(model_->findings().size()) ? &model_->findings()[size_t(index)] : nullptr;
}

void SuggestionsView::selectFinding(int index) {
    const QModelIndex row = proxy_->mapFromSource(model_->index(index, 0));
    if (row.isValid())
        table_->selectionModel()->setCurrentIndex(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void SuggestionsView::onCurrentRowChanged() {
    const advisor::Finding* f = currentFinding();
    emit currentFindingChanged();
    if (!f) {
        details_->clear();
        return;
    }
    QString html = QStringLiteral("<p><b>%1</b> (%2%3)</p><p>%4</p><p><b>Mitigation:</b> %5</p>")
                       .arg(QString::fromStdString(f->rule).toHtmlEscaped(),
                            QString::fromStdString(f->severity).toHtmlEscaped(),
                            f->guideSection.empty()
                                ? QString()
                                : QStringLiteral(", %1").arg(QString::fromStdString(citeVendorGuide(f->guideSection))),
                            QString::fromStdString(f->hazard).toHtmlEscaped(),
                            QString::fromStdString(f->mitigation).toHtmlEscaped());
    if (!f->evidence.empty()) {
        html += QStringLiteral("<p><b>Evidence:</b> ");
        QStringList items;
        for (const advisor::Evidence& e : f->evidence)
            items << QStringLiteral("%1 = %2%3").arg(QString::fromStdString(e.label).toHtmlEscaped())
                         .arg(e.value, 0, 'g', 6)
                         .arg(e.unit.empty() ? QString() : QLatin1Char(' ') + QString::fromStdString(e.unit));
        html += items.join(QStringLiteral(" · ")) + QStringLiteral("</p>");
    }
    html += QStringLiteral("<p><b>Nodes:</b> %1</p>")
                .arg(SuggestionTableModel::nodesOf(*f).join(QStringLiteral(", ")).toHtmlEscaped());
    details_->setHtml(html);
    emit nodesClicked(SuggestionTableModel::nodesOf(*f));
}

}  // namespace npuwb::ui
