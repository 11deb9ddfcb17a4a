#include "shell/FileActions.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QToolBar>

#include <exception>

#include "core/OnnxOnlyAction.h"
#include "core/Workbench.h"
#include "dialogs/RknnConvertDialog.h"
#include "models/Format.h"
#include "npuwb/ModelIO.h"
#include "npuwb/VendorPerfLog.h"
#include "shell/RecentFiles.h"

namespace npuwb::ui {

namespace {
// "<folder>/<base><suffix>" next to `path`.
QString besides(const QString& path, const QString& suffix) {
    const QFileInfo info(path);
    return info.absolutePath() + QLatin1Char('/') + info.completeBaseName() + suffix;
}
}  // namespace

FileActions::FileActions(Workbench& workbench, QMainWindow* window, QMenu* menu, QToolBar* toolBar)
    : QObject(window), workbench_(workbench), window_(window) {
    openAction_ = menu->addAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open Model…"), this,
                                  &FileActions::openFileDialog);
    openAction_->setShortcut(QKeySequence::Open);
    recent_ = new RecentFiles(menu->addMenu(tr("Open &Recent")), this);
    connect(recent_, &RecentFiles::fileChosen, &workbench, &Workbench::openModel);
    saveModelAction_ = menu->addAction(QIcon::fromTheme(QStringLiteral("document-save-as")), tr("Save &Model As…"), this,
                                       &FileActions::saveModelDialog);
    saveModelAction_->setShortcut(QKeySequence::SaveAs);
    exportAction_ = menu->addAction(QIcon::fromTheme(QStringLiteral("document-save-as")), tr("&Export Report…"), this,
                                    &FileActions::exportReportDialog);
    exportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    importLogAction_ = menu->addAction(tr("&Import Vendor Perf Log…"), this, &FileActions::importVendorLogDialog);
    convertRknnAction_ = menu->addAction(tr("Convert to &RKNN…"), this, [this] { openConvertRknnDialog(); });
    convertRknnAction_->setToolTip(tr("Write an RKNN-Toolkit2 conversion script from this model, the target chip and "
                                      "the last quantization, and run it when the toolkit is installed"));
    quitSeparator_ = menu->addSeparator();
    QAction* quit = menu->addAction(tr("&Quit"), window, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    toolBar->addAction(openAction_);
    toolBar->addAction(exportAction_);

    connect(&workbench, &Workbench::modelLoaded, recent_, &RecentFiles::add);
    connect(&workbench, &Workbench::modelLoadFailed, this, [this](const QString& path) {
        if (!QFileInfo::exists(path)) recent_->remove(path);
    });
    connect(&workbench, &Workbench::stateChanged, this, &FileActions::updateActions);
    updateActions();
}

void FileActions::updateActions() {
    const bool busy = workbench_.isBusy();
    openAction_->setEnabled(!busy);
    enableOnnxAction(saveModelAction_, workbench_, workbench_.hasModel() && !busy);
    exportAction_->setEnabled(workbench_.lastReport() && !busy);
    importLogAction_->setEnabled(!busy);
    enableOnnxAction(convertRknnAction_, workbench_, workbench_.hasModel() && !busy);
}

RknnConvertDialog* FileActions::openConvertRknnDialog() {
    if (!workbench_.hasOnnxModel()) return nullptr;  // a compiled model is converted already
    auto* dialog = new RknnConvertDialog(workbench_.currentModel(), workbench_.loadedModel()->path,
                                         workbench_.target().chip, workbench_.lastQuantization(), window_);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &RknnConvertDialog::converted, this, [this](const QString& path) {
        workbench_.showMessage(tr("Converted to %1").arg(QDir::toNativeSeparators(path)));
    });
    dialog->show();
    return dialog;
}

void FileActions::openFileDialog() {
    const QString start = recent_->files().value(0);
    const QString path = QFileDialog::getOpenFileName(window_, tr("Open Model"), QFileInfo(start).absolutePath(),
                                                      tr("Models (*.onnx *.rknn);;ONNX models (*.onnx);;"
                                                         "Compiled RKNN models (*.rknn);;All files (*)"));
    if (!path.isEmpty()) workbench_.openModel(path);
}

void FileActions::saveModelDialog() {
    if (!workbench_.hasOnnxModel()) return;
    const QString suggested = besides(workbench_.loadedModel()->path, QStringLiteral(".optimized.onnx"));
    const QString path = QFileDialog::getSaveFileName(window_, tr("Save Model As"), suggested, tr("ONNX models (*.onnx)"));
    if (!path.isEmpty()) saveModelAs(path);
}

bool FileActions::saveModelAs(const QString& path) {
    if (!workbench_.hasOnnxModel()) return false;  // a compiled model has no graph to write as ONNX
    try {
        saveModel(*workbench_.currentModel(), path.toStdString());  // atomic: a failed write leaves any old file intact
    } catch (const std::exception& e) {
        workbench_.reportError(tr("Cannot write %1").arg(QFileInfo(path).fileName()),
                               tr("%1\n\n%2").arg(QDir::toNativeSeparators(path), QString::fromStdString(e.what())));
        return false;
    }
    workbench_.setStatus(tr("Model written to %1").arg(QDir::toNativeSeparators(path)));
    return true;
}

void FileActions::exportReportDialog() {
    const Report* report = workbench_.lastReport();
    if (!report) return;
    // The model's file, or the imported log's.
    const QString source = workbench_.hasModel() ? workbench_.loadedModel()->path : QString::fromStdString(report->model.path);
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export Report"), besides(source, QStringLiteral(".report.json")),
                                                      tr("JSON reports (*.json)"));
    if (!path.isEmpty()) exportReport(path);
}

bool FileActions::exportReport(const QString& path) {
    const Report* report = workbench_.lastReport();
    if (!report) return false;
    try {
        saveReport(*report, path.toStdString());  // atomic: a failed write leaves any old file intact
    } catch (const std::exception& e) {
        workbench_.reportError(tr("Cannot write %1").arg(QFileInfo(path).fileName()),
                               tr("%1\n\n%2").arg(QDir::toNativeSeparators(path), QString::fromStdString(e.what())));
        return false;
    }
    workbench_.setStatus(tr("Report written to %1").arg(QDir::toNativeSeparators(path)));
    return true;
}

void FileActions::importVendorLogDialog() {
    const QString path = QFileDialog::getOpenFileName(window_, tr("Import Vendor Perf Log"), QString(),
                                                      tr("RKNN perf logs (*.txt *.log);;All files (*)"));
    if (!path.isEmpty()) importVendorLog(path);
}

bool FileActions::importVendorLog(const QString& path) {
    std::shared_ptr<const Report> report;
    try {
        const VendorPerfLog log = loadRknnPerfLog(path.toStdString());
        report = std::make_shared<const Report>(reportFromRknnPerfLog(log, path.toStdString()));
    } catch (const std::exception& e) {
        workbench_.reportError(tr("Cannot import %1").arg(QFileInfo(path).fileName()), QString::fromStdString(e.what()));
        return false;
    }
    workbench_.showReport(report);  // the same views as a run
    workbench_.setStatus(tr("Imported %1: %2 layers, %3 per frame")
                             .arg(QFileInfo(path).fileName())
                             .arg(report->layers.size())
                             .arg(formatMicros(report->run.medianUs)));
    return true;
}

}  // namespace npuwb::ui
