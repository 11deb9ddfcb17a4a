// MainWindow's Estimate and Suggestions tabs: the target toolbar, the estimate and advice workers, applying a
// finding's pass on the undo stack, and saving the rewritten model. (The window's other half is MainWindow.cpp.)
#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>

#include <exception>

#include "MainWindow.h"
#include "jobs/AdviseJob.h"
#include "jobs/EstimateJob.h"
#include "jobs/ModelEditor.h"
#include "jobs/ModelLoadJob.h"
#include "models/LayerSelection.h"
#include "models/SuggestionTableModel.h"
#include "npuwb/ModelIO.h"
#include "views/EstimateView.h"
#include "views/LayerTableView.h"
#include "views/SuggestionsView.h"
#include "views/TargetOptionsBar.h"

namespace npuwb::ui {

namespace {
const QStringList kViewNames = {QStringLiteral("layers"), QStringLiteral("estimate"), QStringLiteral("suggestions"),
                                 QStringLiteral("accuracy")};
}

void MainWindow::createAnalysisViews() {
    estimateJob_ = new EstimateJob(this);
    adviseJob_ = new AdviseJob(this);
    editor_ = new ModelEditor(this);
    estimateView_ = new EstimateView(this);
    suggestionsView_ = new SuggestionsView(this);
    tabs_->addTab(estimateView_, tr("&Estimate"));
    tabs_->addTab(suggestionsView_, tr("&Suggestions"));

    connect(estimateJob_, &EstimateJob::finished, this, [this](std::shared_ptr<const EstimateResult> result) {
        estimateView_->setResult(result);
        estimateView_->highlightNodes(selection_->selectedNodes());
        statusLabel_->setText(estimateView_->totalsLabel()->text().remove(QRegularExpression(QStringLiteral("<[^>]*>"))));
        progress_->hide();
        updateActions();
        emit estimateFinished();
    });
    connect(estimateJob_, &EstimateJob::failed, this, [this](const QString& message) {
        progress_->hide();
        updateActions();
        showError(tr("Estimate failed"), message);
    });
    connect(adviseJob_, &AdviseJob::finished, this,
            [this](std::shared_ptr<const std::vector<advisor::Finding>> findings) {
                int fixable = 0;
                for (const advisor::Finding& f : *findings) fixable += f.pass.empty() ? 0 : 1;
                const TargetOptions target = targetBar_->options();
                suggestionsView_->setFindings(
                    *findings, tr("%1 finding(s) for %2 (%3, %4 core(s)); %5 can be fixed by a pass: select one "
                                  "and press Apply (Ctrl+Return)")
                                   .arg(findings->size())
                                   .arg(target.chip, target.dtype)
                                   .arg(target.cores)
                                   .arg(fixable));
                statusLabel_->setText(tr("%1 finding(s)").arg(findings->size()));
                progress_->hide();
                updateActions();
                emit adviceFinished();
            });
    connect(adviseJob_, &AdviseJob::failed, this, [this](const QString& message) {
        progress_->hide();
        updateActions();
        showError(tr("Advice failed"), message);
    });
    connect(editor_, &ModelEditor::modelReplaced, this, &MainWindow::onModelReplaced);
    connect(editor_, &ModelEditor::failed, this, [this](const QString& message) {
        progress_->hide();
        updateActions();
        showError(tr("Apply failed"), message);
    });

    // Views talk only to the shared selection: names for the estimate's fused layers and for findings.
    connect(estimateView_, &EstimateView::nodesClicked, selection_, &LayerSelection::selectNodes);
    connect(suggestionsView_, &SuggestionsView::nodesClicked, selection_, &LayerSelection::selectNodes);
    connect(selection_, &LayerSelection::nodesSelected, estimateView_, &EstimateView::highlightNodes);
    connect(selection_, &LayerSelection::nodesSelected, layerView_, &LayerTableView::highlightNodes);
    connect(suggestionsView_, &SuggestionsView::currentFindingChanged, this, &MainWindow::updateActions);
}

void MainWindow::createAnalysisActions(QMenu* fileMenu) {
    saveModelAction_ = new QAction(QIcon::fromTheme(QStringLiteral("document-save-as")), tr("Save &Model As…"), this);
    saveModelAction_->setShortcut(QKeySequence::SaveAs);
    connect(saveModelAction_, &QAction::triggered, this, &MainWindow::saveModelDialog);
    fileMenu->insertAction(exportAction_, saveModelAction_);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = editor_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = editor_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence::Redo});
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu* analyze = menuBar()->addMenu(tr("&Analyze"));
    estimateAction_ = analyze->addAction(tr("&Estimate on Chip"), this, &MainWindow::startEstimate);
    estimateAction_->setShortcut(Qt::Key_F6);
    estimateAction_->setToolTip(tr("Estimate per-layer NPU time on the chosen chip, without a board (F6)"));
    adviseAction_ = analyze->addAction(tr("&Advise"), this, &MainWindow::startAdvise);
    adviseAction_->setShortcut(Qt::Key_F7);
    adviseAction_->setToolTip(tr("Find what slows the model down on the chosen chip (F7)"));
    applyAction_ = analyze->addAction(tr("A&pply Fix"), this, &MainWindow::applySelectedFinding);
    applyAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    applyAction_->setToolTip(tr("Run the selected finding's pass with its numerical proof (Ctrl+Return)"));
    suggestionsView_->setApplyAction(applyAction_);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < tabs_->count(); ++i) {
        QAction* show = view->addAction(tabs_->tabText(i).remove(QLatin1Char('&')), this,
                                        [this, i] { tabs_->setCurrentIndex(i); });
        show->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_1 + i)));
    }

    targetBar_ = new TargetOptionsBar(this);
    targetBar_->addAction(estimateAction_);
    targetBar_->addAction(adviseAction_);
    targetBar_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    addToolBar(targetBar_);
}

void MainWindow::restoreAnalysisSettings() {
    QSettings settings;
    TargetOptions target;
    target.chip = settings.value(QStringLiteral("target/chip"), target.chip).toString();
    target.dtype = settings.value(QStringLiteral("target/dtype"), target.dtype).toString();
    target.cores = settings.value(QStringLiteral("target/cores"), target.cores).toInt();
    targetBar_->setOptions(target);
    tabs_->setCurrentIndex(settings.value(QStringLiteral("window/tab"), 0).toInt());
}

void MainWindow::saveAnalysisSettings() const {
    QSettings settings;
    const TargetOptions target = targetBar_->options();
    settings.setValue(QStringLiteral("target/chip"), target.chip);
    settings.setValue(QStringLiteral("target/dtype"), target.dtype);
    settings.setValue(QStringLiteral("target/cores"), target.cores);
    settings.setValue(QStringLiteral("window/tab"), tabs_->currentIndex());
}

QUndoStack* MainWindow::undoStack() const {
    return editor_->undoStack();
}

std::shared_ptr<const Model> MainWindow::currentModel() const {
    return loaded_ ? loaded_->model : nullptr;
}

bool MainWindow::setCurrentView(const QString& name) {
    const int index = kViewNames.indexOf(name.toLower());
    if (index < 0) return false;
    tabs_->setCurrentIndex(index);
    return true;
}

void MainWindow::startEstimate() {
    if (!loaded_ || isBusy()) return;
    progress_->setRange(0, 0);
    progress_->show();
    statusLabel_->setText(tr("Estimating on %1 …").arg(targetBar_->options().chip));
    estimateJob_->start(loaded_->model, targetBar_->options());
    updateActions();
}

void MainWindow::startAdvise() {
    if (!loaded_ || isBusy()) return;
    progress_->setRange(0, 0);
    progress_->show();
    statusLabel_->setText(tr("Advising for %1 …").arg(targetBar_->options().chip));
    adviseJob_->start(loaded_->model, targetBar_->options());
    updateActions();
}

void MainWindow::applySelectedFinding() {
    const advisor::Finding* finding = suggestionsView_->currentFinding();
    if (!loaded_ || isBusy() || !finding || finding->pass.empty()) return;
    progress_->setRange(0, 0);
    progress_->show();
    statusLabel_->setText(tr("Applying %1 with its proof …").arg(QString::fromStdString(finding->pass)));
    editor_->applyPass(loaded_, QString::fromStdString(finding->pass));
    updateActions();
}

void MainWindow::onModelReplaced(std::shared_ptr<const LoadedModel> model, const QString& statusText) {
    progress_->hide();
    showModel(std::move(model));
    // Estimates and findings described the old graph; node names may be gone. Recompute what was shown.
    const bool hadEstimate = estimateView_->result() != nullptr;
    const bool hadAdvice = !suggestionsView_->model()->findings().empty();
    estimateView_->clear(tr("The model changed: press Estimate (F6) again"));
    suggestionsView_->clear(tr("The model changed: press Advise (F7) again"));
    statusLabel_->setText(statusText);
    statusBar()->showMessage(statusText, 15000);
    updateActions();
    emit modelChanged();
    if (hadEstimate && !hadAdvice) startEstimate();
    else if (hadAdvice) startAdvise();
}

void MainWindow::saveModelDialog() {
    if (!loaded_) return;
    const QString suggested = QFileInfo(loaded_->path).absolutePath() + QLatin1Char('/') +
                              QFileInfo(loaded_->path).completeBaseName() + QStringLiteral(".optimized.onnx");
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Model As"), suggested, tr("ONNX models (*.onnx)"));
    if (!path.isEmpty()) saveModelAs(path);
}

bool MainWindow::saveModelAs(const QString& path) {
    if (!loaded_) return false;
    try {
        saveModel(*loaded_->model, path.toStdString());  // atomic: a failed write leaves any old file intact
    } catch (const std::exception& e) {
        showError(tr("Cannot write %1").arg(QFileInfo(path).fileName()),
                  tr("%1\n\n%2").arg(QDir::toNativeSeparators(path), QString::fromStdString(e.what())));
        return false;
    }
    statusLabel_->setText(tr("Model written to %1").arg(QDir::toNativeSeparators(path)));
    return true;
}

}  // namespace npuwb::ui
