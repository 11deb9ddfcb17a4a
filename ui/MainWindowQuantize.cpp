// MainWindow's quantization part: the Quantize dialog, the Accuracy tab, and Re-evaluate with per-layer
// precision overrides on a worker. Kept apart from MainWindow.cpp like the analysis part.
#include <QAction>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QProgressBar>
#include <QTabWidget>

#include <exception>

#include "MainWindow.h"
#include "dialogs/QuantizeDialog.h"
#include "jobs/ModelLoadJob.h"
#include "jobs/QuantizeJob.h"
#include "models/AccuracyModel.h"
#include "models/LayerSelection.h"
#include "npuwb/Report.h"
#include "npuwb/Error.h"
#include "views/AccuracyView.h"

namespace npuwb::ui {

namespace {

QString summaryOf(const QuantizeOutcome& o) {
    const AccuracySection& a = o.accuracy;
    double worst = 1.0;
    QString worstName;
    for (const AccuracyLayer& l : a.layers)
        if (l.entireCosine < worst) worst = l.entireCosine, worstName = QString::fromStdString(l.fullName);
    QStringList outputs;
    for (const AccuracyOutput& out : a.outputs)
        outputs << QStringLiteral("%1 %2").arg(QString::fromStdString(out.name)).arg(out.cosine, 0, 'f', 6);
    QString text = MainWindow::tr("<b>%1</b>, %2 observer, %3 weight rounding, %4 calibration samples, analysis on %5 · "
                                  "output cosine: %6 · lowest entire cosine %7 (%8)")
                       .arg(QString::fromStdString(a.scheme))
                       .arg(QString::fromStdString(std::string(quant::observerName(o.calibration.observer))))
                       .arg(QString::fromStdString(std::string(quant::weightRoundingName(o.calibration.weightRounding))))
                       .arg(o.calibration.samples)
                       .arg(a.samples)
                       .arg(outputs.join(QStringLiteral(", ")))
                       .arg(worst, 0, 'f', 6)
                       .arg(worstName.toHtmlEscaped());
    if (o.hybrid) {
        int kept = 0;
        for (const quant::HybridLayer& l : o.hybrid->layers) kept += l.kept;
        text += MainWindow::tr(" · auto-hybrid kept %1 layer(s) in higher precision (cosine %2 → %3)")
                    .arg(kept)
                    .arg(o.hybrid->cosineBefore, 0, 'f', 4)
                    .arg(o.hybrid->cosineAfter, 0, 'f', 4);
    }
    return text;
}

}  // namespace

void MainWindow::createQuantizeViews() {
    quantizeJob_ = new QuantizeJob(this);
    accuracyView_ = new AccuracyView(this);
    tabs_->addTab(accuracyView_, tr("Acc&uracy"));
    connect(accuracyView_, &AccuracyView::nodesClicked, selection_, &LayerSelection::selectNodes);
    connect(selection_, &LayerSelection::nodesSelected, accuracyView_, &AccuracyView::highlightNodes);
    connect(accuracyView_, &AccuracyView::reevaluateRequested, this,
            [this](const std::map<std::string, std::string>& overrides) {
                if (!quantOutcome_ || isBusy()) return;
                std::map<std::string, quant::Precision> precisions;
                try {
                    for (const auto& [node, name] : overrides) precisions[node] = quant::precisionFromName(name);
                } catch (const std::exception& e) {
                    showError(tr("Re-evaluate"), QString::fromStdString(e.what()));
                    return;
                }
                progress_->setRange(0, 0);
                progress_->show();
                statusLabel_->setText(tr("Re-evaluating with %1 precision change(s) …").arg(precisions.size()));
                quantizeJob_->reevaluate(quantOutcome_, precisions);
                accuracyView_->setReevaluateAvailable(false);
                updateActions();
            });
    connect(quantizeJob_, &QuantizeJob::progress, this, [this](const QString& phase, int done, int total) {
        progress_->setRange(0, std::max(total, 1));
        progress_->setValue(done);
        progress_->setFormat(phase + QStringLiteral(" %v/%m"));
    });
    connect(quantizeJob_, &QuantizeJob::finished, this, [this](std::shared_ptr<const QuantizeOutcome> outcome) {
        progress_->hide();
        showQuantization(outcome);
        statusLabel_->setText(tr("Quantized model re-evaluated"));
        updateActions();
    });
    connect(quantizeJob_, &QuantizeJob::cancelled, this, [this] {
        progress_->hide();
        accuracyView_->setReevaluateAvailable(quantOutcome_ != nullptr);
        updateActions();
    });
    connect(quantizeJob_, &QuantizeJob::failed, this, [this](const QString& message) {
        progress_->hide();
        accuracyView_->setReevaluateAvailable(quantOutcome_ != nullptr);
        updateActions();
        showError(tr("Quantization failed"), message);
    });
}

void MainWindow::createQuantizeActions(QMenu* menu) {
    quantizeAction_ = menu->addAction(tr("&Quantize…"), this, [this] { openQuantizeDialog(); });
    quantizeAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Q));
    quantizeAction_->setToolTip(tr("Calibrate on a data set, quantize, and analyse per-layer accuracy (Ctrl+Shift+Q)"));
}

bool MainWindow::quantizeBusy() const { return quantizeJob_ && quantizeJob_->isRunning(); }

QuantizeDialog* MainWindow::openQuantizeDialog() {
    if (!loaded_ || isBusy()) return nullptr;
    auto* dialog = new QuantizeDialog(loaded_->model, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QuantizeDialog::quantized, this, &MainWindow::showQuantization);
    dialog->show();
    return dialog;
}

void MainWindow::quantizeWithDataset(const QString& dataset) {
    QuantizeDialog* dialog = openQuantizeDialog();
    if (!dialog) return;
    dialog->setAskToSave(false);
    dialog->setDataset(dataset);
    connect(dialog->job(), &QuantizeJob::failed, this, [this](const QString& m) { emit operationFailed(m); });
    connect(dialog, &QuantizeDialog::quantized, dialog, &QDialog::accept);
    dialog->startQuantize();
}

void MainWindow::showQuantization(std::shared_ptr<const QuantizeOutcome> outcome) {
    quantOutcome_ = std::move(outcome);
    accuracyView_->setAccuracy(quantOutcome_->accuracy, summaryOf(*quantOutcome_));
    accuracyView_->setReevaluateAvailable(true);
    accuracyView_->highlightNodes(selection_->selectedNodes());
    setCurrentView(QStringLiteral("accuracy"));
    emit quantizeFinished();
}

void MainWindow::clearQuantization() {
    quantOutcome_.reset();
    accuracyView_->clear(tr("Quantize the model (Run ▸ Quantize…, Ctrl+Shift+Q) to see per-layer accuracy here"));
}

bool MainWindow::showAccuracyReport(const QString& path) {
    try {
        const Report report = loadReport(path.toStdString());
        if (!report.accuracy) throw Error(ErrorKind::InvalidInput, path.toStdString() + ": the report has no accuracy section");
        quantOutcome_.reset();
        accuracyView_->setAccuracy(*report.accuracy,
                                   tr("<b>%1</b> vs %2 · %3 samples (from %4)")
                                       .arg(QString::fromStdString(report.accuracy->scheme),
                                            QString::fromStdString(report.accuracy->floatModel))
                                       .arg(report.accuracy->samples)
                                       .arg(path.toHtmlEscaped()));
        setCurrentView(QStringLiteral("accuracy"));
        return true;
    } catch (const std::exception& e) {
        showError(tr("Cannot show accuracy"), QString::fromStdString(e.what()));
        return false;
    }
}

}  // namespace npuwb::ui
