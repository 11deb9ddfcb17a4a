#include "dialogs/RknnConvertDialog.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include "npuwb/DatasetList.h"
#include "npuwb/Error.h"
#include "npuwb/Preprocessing.h"

namespace npuwb::ui {

namespace {

enum Source { SourceSession, SourceReport, SourceNone };

// "x=1,3,640,640; y=1,10" -> {"x": [1,3,640,640], ...}
std::map<std::string, Shape> parseShapes(const QString& text) {
    std::map<std::string, Shape> out;
    for (const QString& spec : text.split(QRegularExpression(QStringLiteral("[;\\s]+")), Qt::SkipEmptyParts)) {
        const qsizetype eq = spec.indexOf(QLatin1Char('='));
        if (eq <= 0) failInput("input size '" + spec.toStdString() + "': expected NAME=D1,D2,...");
        Shape shape;
        for (const QString& d : spec.mid(eq + 1).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            const qlonglong v = d.toLongLong(&ok);
            if (!ok || v <= 0) failInput("input size '" + spec.toStdString() + "': '" + d.toStdString() + "' is not a size");
            shape.push_back(v);
        }
        out[spec.left(eq).toStdString()] = shape;
    }
    return out;
}

QPushButton* browseButton(QWidget* parent, QLineEdit* field, const QString& title, const QString& filter, bool save) {
    auto* button = new QPushButton(QObject::tr("Browse…"), parent);
    QObject::connect(button, &QPushButton::clicked, parent, [=] {
        const QString path = save ? QFileDialog::getSaveFileName(parent, title, field->text(), filter)
                                  : QFileDialog::getOpenFileName(parent, title, field->text(), filter);
        if (!path.isEmpty()) field->setText(path);
    });
    return button;
}

QWidget* row(QWidget* parent, QWidget* field, QWidget* button) {
    auto* w = new QWidget(parent);
    auto* h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(field, 1);
    h->addWidget(button);
    return w;
}

}  // namespace

RknnConvertDialog::RknnConvertDialog(std::shared_ptr<const Model> model, const QString& modelPath,
                                     const QString& target, std::shared_ptr<const rknn::QuantizationFacts> session,
                                     QWidget* parent)
    : QDialog(parent), model_(std::move(model)), modelPath_(modelPath), session_(std::move(session)),
      job_(new RknnConvertJob(this)), refreshTimer_(new QTimer(this)) {
    setWindowTitle(tr("Convert to RKNN"));
    buildUi();
    restoreSettings();
    setTarget(target);
    const QFileInfo info(modelPath_);
    output_->setText(info.absolutePath() + QLatin1Char('/') + info.completeBaseName() + QStringLiteral(".rknn"));
    refreshTimer_->setSingleShot(true);
    refreshTimer_->setInterval(250);
    connect(refreshTimer_, &QTimer::timeout, this, &RknnConvertDialog::refresh);
    connect(job_, &RknnConvertJob::probed, this, &RknnConvertDialog::onProbed);
    connect(job_, &RknnConvertJob::outputLine, log_, &QPlainTextEdit::appendPlainText);
    connect(job_, &RknnConvertJob::progress, this, [this](int step, int steps, const QString& what) {
        progress_->setRange(0, steps);
        progress_->setValue(step - 1);
        progress_->setFormat(tr("step %1/%2: %3").arg(step).arg(steps).arg(what));
    });
    connect(job_, &RknnConvertJob::finished, this, [this](const QString& path) {
        setRunning(false);
        progress_->setValue(progress_->maximum());
        progress_->setFormat(tr("Wrote %1").arg(path));
        status_->setText(tr("Converted: %1 (%2 bytes)").arg(path).arg(QFileInfo(path).size()));
        emit converted(path);
    });
    connect(job_, &RknnConvertJob::failed, this, [this](const QString& message) {
        setRunning(false);
        status_->setText(tr("Failed: %1").arg(message));
    });
    connect(job_, &RknnConvertJob::cancelled, this, [this] {
        setRunning(false);
        status_->setText(tr("Cancelled; nothing written"));
    });
    refresh();
    probeToolkit();
}

RknnConvertDialog::~RknnConvertDialog() { saveSettings(); }

void RknnConvertDialog::buildUi() {
    target_ = new QComboBox(this);
    for (const auto& t : rknn::targetPlatforms()) target_->addItem(QString::fromStdString(t));
    dataset_ = new QLineEdit(this);
    dataset_->setPlaceholderText(tr("dataset.txt or image folder (empty: float16 model)"));
    preprocess_ = new QLineEdit(this);
    preprocess_->setPlaceholderText(tr("preprocessing JSON (empty: the quantization's)"));
    shapes_ = new QLineEdit(this);
    shapes_->setPlaceholderText(tr("sizes of symbolic inputs, e.g. x=1,3,640,640"));
    source_ = new QComboBox(this);
    source_->addItem(session_ ? tr("Last quantization in this session (%1 layer(s) kept)").arg(session_->keptLayers.size())
                              : tr("Last quantization in this session (none yet)"),
                     SourceSession);
    source_->addItem(tr("Report file (quantize --json / accuracy --json)"), SourceReport);
    source_->addItem(tr("None: plain quantization"), SourceNone);
    source_->setCurrentIndex(session_ ? 0 : 2);
    report_ = new QLineEdit(this);
    report_->setPlaceholderText(tr("quantization or accuracy report JSON"));
    python_ = new QLineEdit(this);
    output_ = new QLineEdit(this);
    toolkit_ = new QLabel(this);
    toolkit_->setWordWrap(true);
    status_ = new QLabel(this);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    script_ = new QPlainTextEdit(this);
    script_->setReadOnly(true);
    script_->setFont(mono);
    script_->setLineWrapMode(QPlainTextEdit::NoWrap);
    command_ = new QLineEdit(this);
    command_->setReadOnly(true);
    command_->setFont(mono);
    copy_ = new QPushButton(tr("Copy"), this);
    connect(copy_, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(command_->text()); });
    write_ = new QPushButton(tr("Write Script"), this);
    run_ = new QPushButton(tr("Run"), this);
    run_->setEnabled(false);
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setEnabled(false);
    auto* close = new QPushButton(tr("Close"), this);
    connect(write_, &QPushButton::clicked, this, &RknnConvertDialog::writeScript);
    connect(run_, &QPushButton::clicked, this, &RknnConvertDialog::startRun);
    connect(cancel_, &QPushButton::clicked, job_, &RknnConvertJob::cancelRun);
    connect(close, &QPushButton::clicked, this, &RknnConvertDialog::reject);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setTextVisible(true);
    progress_->setFormat(QString());
    log_ = new QPlainTextEdit(this);
    log_->setReadOnly(true);
    log_->setFont(mono);
    log_->setPlaceholderText(tr("the toolkit's output"));

    auto* form = new QFormLayout;
    form->addRow(tr("Target chip:"), target_);
    form->addRow(tr("Data set:"), row(this, dataset_, browseButton(this, dataset_, tr("Data set"), tr("Lists (*.txt);;All files (*)"), false)));
    form->addRow(tr("Preprocessing:"), row(this, preprocess_, browseButton(this, preprocess_, tr("Preprocessing"), tr("JSON (*.json)"), false)));
    form->addRow(tr("Input sizes:"), shapes_);
    form->addRow(tr("Follow:"), source_);
    form->addRow(tr("Report:"), row(this, report_, browseButton(this, report_, tr("Report"), tr("JSON (*.json)"), false)));
    form->addRow(tr("Python:"), python_);
    form->addRow(tr("Output:"), row(this, output_, browseButton(this, output_, tr("Output"), tr("RKNN models (*.rknn)"), true)));
    auto* commandRow = new QHBoxLayout;
    commandRow->addWidget(command_, 1);
    commandRow->addWidget(copy_);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(write_);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    buttons->addStretch(1);
    buttons->addWidget(close);

    auto* left = new QWidget(this);
    auto* l = new QVBoxLayout(left);
    l->setContentsMargins(0, 0, 0, 0);
    l->addLayout(form);
    l->addWidget(toolkit_);
    l->addWidget(new QLabel(tr("Command:"), this));
    l->addLayout(commandRow);
    l->addWidget(status_);
    l->addLayout(buttons);
    l->addWidget(progress_);
    l->addWidget(log_, 1);
    auto* splitter = new QSplitter(this);
    splitter->addWidget(left);
    splitter->addWidget(script_);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    auto* top = new QVBoxLayout(this);
    top->addWidget(splitter);
    resize(1280, 760);

    for (QLineEdit* field : {dataset_, preprocess_, shapes_, report_, output_})
        connect(field, &QLineEdit::textChanged, refreshTimer_, qOverload<>(&QTimer::start));
    connect(python_, &QLineEdit::editingFinished, this, [this] {
        refresh();
        probeToolkit();
    });
    connect(target_, &QComboBox::currentTextChanged, refreshTimer_, qOverload<>(&QTimer::start));
    connect(source_, &QComboBox::currentIndexChanged, this, [this] {
        report_->setEnabled(source_->currentData().toInt() == SourceReport);
        refresh();
    });
    report_->setEnabled(false);
}

void RknnConvertDialog::restoreSettings() {
    QSettings s;
    s.beginGroup(QStringLiteral("convertRknn"));
    python_->setText(s.value(QStringLiteral("python"), QStringLiteral("python3")).toString());
    dataset_->setText(s.value(QStringLiteral("dataset")).toString());
    preprocess_->setText(s.value(QStringLiteral("preprocess")).toString());
}

void RknnConvertDialog::saveSettings() const {
    QSettings s;
    s.beginGroup(QStringLiteral("convertRknn"));
    s.setValue(QStringLiteral("python"), python_->text());
    s.setValue(QStringLiteral("dataset"), dataset_->text());
    s.setValue(QStringLiteral("preprocess"), preprocess_->text());
}

void RknnConvertDialog::setDataset(const QString& path) {
    dataset_->setText(path);
    refresh();
}
void RknnConvertDialog::setPreprocessing(const QString& path) {
    preprocess_->setText(path);
    refresh();
}
void RknnConvertDialog::setInputShapes(const QString& specs) {
    shapes_->setText(specs);
    refresh();
}
void RknnConvertDialog::setOutput(const QString& path) {
    output_->setText(path);
    refresh();
}
void RknnConvertDialog::setPython(const QString& python) {
    python_->setText(python);
    refresh();
    probeToolkit();
}

void RknnConvertDialog::probeToolkit() {
    toolkitAvailable_ = false;
    run_->setEnabled(false);
    toolkit_->setText(tr("Checking whether %1 imports rknn.api …").arg(python_->text()));
    job_->probe(python_->text());
}
void RknnConvertDialog::setTarget(const QString& chip) {
    const int index = target_->findText(chip.toLower());
    if (index >= 0) target_->setCurrentIndex(index);
}

QString RknnConvertDialog::statusText() const { return status_->text(); }
QString RknnConvertDialog::command() const { return command_->text(); }

void RknnConvertDialog::refresh() {
    refreshTimer_->stop();
    plan_.reset();
    try {
        rknn::ConversionOptions o;
        o.modelPath = modelPath_.toStdString();
        o.outputPath = output_->text().toStdString();
        o.target = target_->currentText().toStdString();
        o.inputShapes = parseShapes(shapes_->text());
        const int source = source_->currentData().toInt();
        if (source == SourceSession && session_) o.quantization = *session_;
        if (source == SourceReport && !report_->text().isEmpty())
            o.quantization = rknn::loadQuantizationFacts(report_->text().toStdString());
        std::string dataset = dataset_->text().toStdString(), preprocess = preprocess_->text().toStdString();
        if (o.quantization && dataset.empty()) dataset = o.quantization->datasetPath;
        if (o.quantization && preprocess.empty()) preprocess = o.quantization->preprocessPath;
        if (!dataset.empty()) o.dataset = imageio::loadDatasetList(dataset);
        if (!preprocess.empty()) o.preprocessing = imageio::loadPreprocessingFile(preprocess);
        plan_ = rknn::planConversion(*model_, o);
        script_->setPlainText(QString::fromStdString(rknn::renderScript(*plan_)));
        command_->setText(QString::fromStdString(rknn::runCommand(*plan_, python_->text().toStdString())));
        QString summary = plan_->quantize ? tr("%1 on %2, %3 / %4, %5 sample(s), %6 layer(s) kept in float16")
                                                .arg(QString::fromStdString(plan_->quantizedDtype),
                                                     QString::fromStdString(plan_->target),
                                                     QString::fromStdString(plan_->quantizedAlgorithm),
                                                     QString::fromStdString(plan_->quantizedMethod))
                                                .arg(plan_->datasetSamples.size())
                                                .arg(plan_->hybridLayers.size())
                                          : tr("float16 on %1 (no quantization)").arg(QString::fromStdString(plan_->target));
        for (const auto& n : plan_->notes) summary += QStringLiteral("\n") + tr("Note: %1").arg(QString::fromStdString(n));
        status_->setText(summary);
    } catch (const std::exception& e) {
        script_->clear();
        command_->clear();
        status_->setText(tr("Cannot plan the conversion: %1").arg(QString::fromUtf8(e.what())));
    }
    write_->setEnabled(plan_.has_value() && !job_->isRunning());
    run_->setEnabled(plan_.has_value() && toolkitAvailable_ && !job_->isRunning());
}

bool RknnConvertDialog::writeScript() {
    if (!plan_) return false;
    try {
        rknn::writeConversionFiles(*plan_);
    } catch (const std::exception& e) {
        status_->setText(tr("Cannot write the script: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    status_->setText(tr("Wrote %1%2. %3")
                         .arg(QString::fromStdString(plan_->scriptPath),
                              plan_->datasetPath.empty() ? QString() : tr(" and %1").arg(QString::fromStdString(plan_->datasetPath)),
                              toolkitAvailable_ ? tr("Run converts.") : tr("Run the command above where RKNN-Toolkit2 is installed.")));
    return true;
}

void RknnConvertDialog::startRun() {
    if (!plan_ || !toolkitAvailable_ || job_->isRunning() || !writeScript()) return;
    log_->clear();
    setRunning(true);
    job_->run(python_->text(), QString::fromStdString(plan_->scriptPath), QString::fromStdString(plan_->outputPath));
}

void RknnConvertDialog::setRunning(bool running) {
    run_->setEnabled(!running && plan_.has_value() && toolkitAvailable_);
    write_->setEnabled(!running && plan_.has_value());
    cancel_->setEnabled(running);
    if (running) {
        progress_->setRange(0, 0);
        progress_->setFormat(tr("starting %1 …").arg(python_->text()));
    }
}

void RknnConvertDialog::onProbed(bool available, const QString& detail) {
    toolkitAvailable_ = available;
    toolkit_->setText(available ? tr("RKNN-Toolkit2 (%1) found in %2: Run converts here.").arg(detail, python_->text())
                                : tr("%1: write the script and run the command below where the toolkit is "
                                     "installed.").arg(detail));
    run_->setEnabled(plan_.has_value() && available && !job_->isRunning());
}

void RknnConvertDialog::reject() {
    if (job_->isRunning()) {
        job_->cancelRun();
        return;  // the dialog stays until the script has stopped
    }
    QDialog::reject();
}

}  // namespace npuwb::ui
