#include "dialogs/QuantizeDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPixmap>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>

#include "npuwb/DatasetSampleSource.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Error.h"

namespace npuwb::ui {

namespace {

std::vector<float> parseFloats(const QString& text, const char* what) {
    std::vector<float> out;
    for (const QString& part : text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts)) {
        bool ok = false;
        const float v = part.toFloat(&ok);
        if (!ok) failInput(std::string(what) + ": '" + part.toStdString() + "' is not a number");
        out.push_back(v);
    }
    return out;
}

QComboBox* combo(QWidget* parent, const QStringList& items) {
    auto* box = new QComboBox(parent);
    box->addItems(items);
    return box;
}

}  // namespace

QuantizeDialog::QuantizeDialog(std::shared_ptr<const Model> floatModel, QWidget* parent)
    : QDialog(parent), model_(std::move(floatModel)), job_(new QuantizeJob(this)) {
    setWindowTitle(tr("Quantize"));
    buildUi();
    restoreSettings();
    prefillInputSize();
    connect(job_, &QuantizeJob::progress, this, [this](const QString& phase, int done, int total) {
        progress_->setRange(0, std::max(total, 1));
        progress_->setValue(done);
        status_->setText(tr("%1: %2 / %3").arg(phase).arg(done).arg(total));
    });
    connect(job_, &QuantizeJob::finished, this, &QuantizeDialog::onFinished);
    connect(job_, &QuantizeJob::cancelled, this, [this] {
        setRunning(false);
        status_->setText(tr("Cancelled"));
    });
    connect(job_, &QuantizeJob::failed, this, [this](const QString& message) {
        setRunning(false);
        status_->setText(tr("Failed: %1").arg(message));
    });
    updatePreview();
}

QuantizeDialog::~QuantizeDialog() { saveSettings(); }

void QuantizeDialog::prefillInputSize() {
    // The first real input (not an initializer listed as input): H and W of NCHW, or of NHWC when dim 1 is not
    // a channel count; symbolic dims leave the field to the user.
    for (const ValueInfo& in : model_->graph.inputs) {
        if (model_->graph.initializers.count(in.name)) continue;
        if (!in.type.shape || in.type.shape->size() != 4) return;
        const SymShape& d = *in.type.shape;
        const bool nchw = !d[1].known() || d[1].value <= 4;
        const Dim& h = nchw ? d[2] : d[1];
        const Dim& w = nchw ? d[3] : d[2];
        if (h.known() && w.known() && h.value > 0 && w.value > 0) {
            width_->setValue(int(w.value));
            height_->setValue(int(h.value));
        }
        return;
    }
}

void QuantizeDialog::buildUi() {
    dataset_ = new QLineEdit(this);
    dataset_->setPlaceholderText(tr("dataset.txt (one sample per line) or a folder of images"));
    auto* listButton = new QPushButton(tr("List…"), this);
    auto* folderButton = new QPushButton(tr("Folder…"), this);
    connect(listButton, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Data set list"), dataset_->text(),
                                                       tr("Data set lists (*.txt);;All files (*)"));
        if (!f.isEmpty()) setDataset(f);
    });
    connect(folderButton, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Folder of images"), dataset_->text());
        if (!d.isEmpty()) setDataset(d);
    });
    connect(dataset_, &QLineEdit::editingFinished, this, &QuantizeDialog::updatePreview);
    auto* datasetRow = new QHBoxLayout;
    datasetRow->addWidget(dataset_, 1);
    datasetRow->addWidget(listButton);
    datasetRow->addWidget(folderButton);

    mean_ = new QLineEdit(this);
    mean_->setPlaceholderText(tr("0 (one value or one per channel)"));
    std_ = new QLineEdit(this);
    std_->setPlaceholderText(tr("1"));
    scale_ = new QDoubleSpinBox(this);
    scale_->setDecimals(8);
    scale_->setRange(1e-8, 1000.0);
    scale_->setValue(1.0 / 255.0);
    color_ = combo(this, {QStringLiteral("RGB"), QStringLiteral("BGR")});
    resize_ = combo(this, {tr("stretch"), tr("letterbox")});
    fill_ = new QSpinBox(this);
    fill_->setRange(0, 255);
    layout_ = combo(this, {tr("auto"), QStringLiteral("NCHW"), QStringLiteral("NHWC")});
    // The size images are resized to: the model's when its H/W are numbers, else the user's (PP-OCR's are symbolic).
    width_ = new QSpinBox(this);
    height_ = new QSpinBox(this);
    for (QSpinBox* b : {width_, height_}) {
        b->setRange(0, 16384);
        b->setSpecialValueText(tr("model's"));
        b->setToolTip(tr("The preprocessing \"size\" [width, height] images are resized to; \"model's\" takes it "
                         "from the input shape, which must then be fixed"));
        connect(b, &QSpinBox::editingFinished, this, &QuantizeDialog::updatePreview);
    }
    width_->setObjectName(QStringLiteral("inputWidth"));
    height_->setObjectName(QStringLiteral("inputHeight"));
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(width_, 1);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
    sizeRow->addWidget(height_, 1);
    auto* sizeLabel = new QLabel(tr("Input si&ze (w × h)"), this);
    sizeLabel->setBuddy(width_);
    auto* pre = new QFormLayout;
    pre->addRow(tr("value = (pixel × scale − mean) / std;  scale"), scale_);
    pre->addRow(tr("Mean"), mean_);
    pre->addRow(tr("Std"), std_);
    pre->addRow(tr("Colour order"), color_);
    pre->addRow(tr("Resize"), resize_);
    pre->addRow(sizeLabel, sizeRow);
    pre->addRow(tr("Letterbox fill"), fill_);
    pre->addRow(tr("Layout"), layout_);
    for (QLineEdit* e : {mean_, std_}) connect(e, &QLineEdit::editingFinished, this, &QuantizeDialog::updatePreview);
    connect(scale_, &QDoubleSpinBox::valueChanged, this, &QuantizeDialog::updatePreview);
    connect(fill_, &QSpinBox::valueChanged, this, &QuantizeDialog::updatePreview);
    for (QComboBox* c : {color_, resize_, layout_})
        connect(c, &QComboBox::currentIndexChanged, this, &QuantizeDialog::updatePreview);

    preview_ = new QLabel(this);
    preview_->setObjectName(QStringLiteral("preprocessPreview"));
    preview_->setMinimumSize(200, 160);
    preview_->setAlignment(Qt::AlignCenter);
    preview_->setFrameShape(QFrame::StyledPanel);
    previewInfo_ = new QLabel(this);
    previewInfo_->setWordWrap(true);
    auto* previewBox = new QVBoxLayout;
    previewBox->addWidget(preview_, 1);
    previewBox->addWidget(previewInfo_);
    auto* preGroup = new QGroupBox(tr("Preprocessing (first input)"), this);
    auto* preRow = new QHBoxLayout(preGroup);
    preRow->addLayout(pre, 1);
    preRow->addLayout(previewBox, 1);

    scheme_ = combo(this, {QStringLiteral("w8a8"), QStringLiteral("w8a16"), QStringLiteral("w4a16"), QStringLiteral("fp16")});
    observer_ = combo(this, {QStringLiteral("minmax"), QStringLiteral("kl"), QStringLiteral("mmse"), QStringLiteral("percentile")});
    rounding_ = combo(this, {QStringLiteral("nearest"), QStringLiteral("gptq")});
    rounding_->setToolTip(tr("gptq: round integer weights with error feedback through the correlation of each "
                             "layer's calibration inputs (one more pass over up to %1 samples); recovers most of "
                             "int4's loss")
                              .arg(quant::kDefaultRoundingSamples));
    perChannel_ = new QCheckBox(tr("per-channel weights (else per-tensor)"), this);
    perChannel_->setChecked(true);
    groupSize_ = new QSpinBox(this);
    groupSize_->setRange(32, 256);
    groupSize_->setSingleStep(32);
    groupSize_->setValue(128);
    autoHybrid_ = new QCheckBox(tr("auto-hybrid: raise sensitive layers to fp16 until output cosine ≥"), this);
    hybridTarget_ = new QDoubleSpinBox(this);
    hybridTarget_->setDecimals(4);
    hybridTarget_->setRange(0.5, 1.0);
    hybridTarget_->setSingleStep(0.001);
    hybridTarget_->setValue(0.99);
    maxSamples_ = new QSpinBox(this);
    maxSamples_->setRange(0, 100000);
    maxSamples_->setSpecialValueText(tr("all"));
    accuracySamples_ = new QSpinBox(this);
    accuracySamples_->setRange(1, 1000);
    accuracySamples_->setValue(4);
    auto* hybridRow = new QHBoxLayout;
    hybridRow->addWidget(autoHybrid_);
    hybridRow->addWidget(hybridTarget_);
    auto* q = new QFormLayout;
    q->addRow(tr("Scheme"), scheme_);
    q->addRow(tr("Observer"), observer_);
    q->addRow(tr("Weight rounding"), rounding_);
    q->addRow(QString(), perChannel_);
    q->addRow(tr("w4 group size"), groupSize_);
    q->addRow(hybridRow);
    q->addRow(tr("Calibration samples"), maxSamples_);
    q->addRow(tr("Accuracy analysis samples"), accuracySamples_);
    connect(scheme_, &QComboBox::currentTextChanged, this,
            [this](const QString& s) { groupSize_->setEnabled(s == QLatin1String("w4a16")); });
    groupSize_->setEnabled(false);
    auto* qGroup = new QGroupBox(tr("Quantization"), this);
    qGroup->setLayout(q);

    progress_ = new QProgressBar(this);
    progress_->setValue(0);
    status_ = new QLabel(this);
    quantize_ = new QPushButton(tr("&Quantize"), this);
    quantize_->setDefault(true);
    cancel_ = new QPushButton(tr("Cancel"), this);
    connect(quantize_, &QPushButton::clicked, this, &QuantizeDialog::startQuantize);
    connect(cancel_, &QPushButton::clicked, this, &QuantizeDialog::reject);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(progress_, 1);
    buttons->addWidget(quantize_);
    buttons->addWidget(cancel_);

    auto* layout = new QVBoxLayout(this);
    auto* datasetForm = new QFormLayout;
    datasetForm->addRow(tr("Data set"), datasetRow);
    layout->addLayout(datasetForm);
    layout->addWidget(preGroup);
    layout->addWidget(qGroup);
    layout->addWidget(status_);
    layout->addLayout(buttons);
}

void QuantizeDialog::setDataset(const QString& path) {
    dataset_->setText(path);
    updatePreview();
}

void QuantizeDialog::setInputShapes(const std::map<std::string, Shape>& shapes) {
    inputShapes_ = shapes;
    updatePreview();
}

QuantizeRequest QuantizeDialog::request() const {
    QuantizeRequest r;
    r.floatModel = model_;
    r.dataset = dataset_->text().trimmed();
    imageio::Preprocessing p;
    p.mean = parseFloats(mean_->text(), "mean");
    p.std = parseFloats(std_->text(), "std");
    for (float s : p.std)
        if (s == 0.0f) failInput("std: values must be non-zero");
    p.scale = static_cast<float>(scale_->value());
    p.color = color_->currentIndex() == 1 ? imageio::ColorOrder::BGR : imageio::ColorOrder::RGB;
    p.resize = resize_->currentIndex() == 1 ? imageio::ResizeMode::Letterbox : imageio::ResizeMode::Stretch;
    p.fill = static_cast<float>(fill_->value());
    p.width = width_->value();
    p.height = height_->value();
    if ((p.width == 0) != (p.height == 0)) failInput("input size: give both width and height, or neither");
    p.layout = layout_->currentIndex() == 1 ? imageio::Layout::NCHW
               : layout_->currentIndex() == 2 ? imageio::Layout::NHWC
                                              : imageio::Layout::Auto;
    r.preprocessing["*"] = p;
    for (const auto& [name, shape] : inputShapes_) {  // images of the sizes the user gave for symbolic H and W
        if (shape.size() != 4) continue;
        imageio::Preprocessing sized = p;
        const bool nhwc = p.layout == imageio::Layout::NHWC || (p.layout == imageio::Layout::Auto && shape[3] <= 4);
        sized.height = static_cast<int>(nhwc ? shape[1] : shape[2]);
        sized.width = static_cast<int>(nhwc ? shape[2] : shape[3]);
        r.preprocessing[name] = sized;
    }
    r.options.scheme = quant::schemeFromName(scheme_->currentText().toStdString());
    r.options.observer = quant::observerFromName(observer_->currentText().toStdString());
    r.options.weightRounding = quant::weightRoundingFromName(rounding_->currentText().toStdString());
    r.options.perChannel = perChannel_->isChecked();
    r.options.groupSize = groupSize_->value();
    if (autoHybrid_->isChecked()) r.options.autoHybridCosine = hybridTarget_->value();
    r.options.maxSamples = static_cast<size_t>(maxSamples_->value());
    r.accuracySamples = static_cast<size_t>(accuracySamples_->value());
    return r;
}

namespace {
/// A decoded image (gray, RGB or RGBA bytes) as a QImage that owns its pixels.
QImage toQImage(const imageio::Image& image) {
    const QImage::Format format = image.channels == 1   ? QImage::Format_Grayscale8
                                  : image.channels == 4 ? QImage::Format_RGBA8888
                                                        : QImage::Format_RGB888;
    return QImage(image.pixels.data(), image.width, image.height, image.width * image.channels, format).copy();
}
}  // namespace

void QuantizeDialog::updatePreview() {
    preview_->setPixmap({});
    if (!model_ || dataset_->text().trimmed().isEmpty()) {
        preview_->setText(tr("no data set"));
        previewInfo_->clear();
        return;
    }
    try {
        const QuantizeRequest r = request();
        const auto source = imageio::makeSampleSource(r.dataset.toStdString(), imageio::modelFeedInputs(*model_),
                                                      r.preprocessing);
        const imageio::InputGeometry& g = source->inputs().front();
        const std::string& file = source->list().entries.front().files.front();
        if (!imageio::isImageFile(file)) {
            preview_->setText(tr("first sample is a .npy array"));
            previewInfo_->setText(tr("%1 samples").arg(source->size()));
            return;
        }
        const imageio::Image original = source->loadImage(0, 0);
        const QImage prepared =
            toQImage(imageio::prepareImage(original, source->preprocessingOf(0), g, source->list().originOf(0)));
        const Tensor t = imageio::imageToTensor(original, source->preprocessingOf(0), g, source->list().originOf(0));
        const std::vector<float> v = t.toFloatVector();
        const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
        preview_->setPixmap(QPixmap::fromImage(prepared).scaled(preview_->size() - QSize(4, 4), Qt::KeepAspectRatio,
                                                                Qt::FastTransformation));
        previewInfo_->setText(tr("%1 samples · %2 %3 → %4, values [%5, %6]")
                                  .arg(source->size())
                                  .arg(QString::fromStdString(g.name))
                                  .arg(QStringLiteral("%1×%2").arg(original.width).arg(original.height))
                                  .arg(QString::fromStdString(shapeToString(g.shape)))
                                  .arg(*lo, 0, 'g', 4)
                                  .arg(*hi, 0, 'g', 4));
    } catch (const std::exception& e) {
        preview_->setText(tr("no preview"));
        previewInfo_->setText(QString::fromStdString(e.what()));
    }
}

void QuantizeDialog::startQuantize() {
    if (job_->isRunning()) return;
    QuantizeRequest r;
    try {
        r = request();
        if (r.dataset.isEmpty()) failInput("choose a data set list or a folder of images");
    } catch (const std::exception& e) {
        status_->setText(tr("Cannot start: %1").arg(QString::fromStdString(e.what())));
        return;
    }
    saveSettings();
    setRunning(true);
    status_->setText(tr("Calibrating …"));
    job_->start(r);
}

void QuantizeDialog::onFinished(std::shared_ptr<const QuantizeOutcome> outcome) {
    setRunning(false);
    outcome_ = outcome;
    status_->setText(tr("Done: %1 samples calibrated in %2 s on %3")
                         .arg(outcome->calibration.samples)
                         .arg(outcome->calibration.seconds, 0, 'f', 1)
                         .arg(QString::fromStdString(outcome->calibration.backend)));
    emit quantized(outcome);
    if (!askToSave_) return;
    QSettings settings;
    const QString suggested = settings.value(QStringLiteral("quantize/saveDir")).toString();
    const QString file = QFileDialog::getSaveFileName(this, tr("Save quantized model"), suggested,
                                                      tr("ONNX models (*.onnx)"));
    if (file.isEmpty()) return;
    try {
        saveModel(*outcome->quantModel, file.toStdString());
        settings.setValue(QStringLiteral("quantize/saveDir"), QFileInfo(file).absolutePath());
        status_->setText(tr("Saved %1").arg(file));
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Save failed"), QString::fromStdString(e.what()));
    }
}

void QuantizeDialog::reject() {
    if (job_->isRunning()) {
        job_->cancel();
        status_->setText(tr("Cancelling …"));
        return;
    }
    QDialog::reject();
}

void QuantizeDialog::setRunning(bool running) {
    quantize_->setEnabled(!running);
    cancel_->setText(running ? tr("Cancel") : tr("Close"));
    if (running) progress_->setRange(0, 0);
    else if (progress_->maximum() == 0) progress_->setRange(0, 1);
}

void QuantizeDialog::restoreSettings() {
    QSettings s;
    s.beginGroup(QStringLiteral("quantize"));
    dataset_->setText(s.value(QStringLiteral("dataset")).toString());
    mean_->setText(s.value(QStringLiteral("mean")).toString());
    std_->setText(s.value(QStringLiteral("std")).toString());
    scale_->setValue(s.value(QStringLiteral("scale"), 1.0 / 255.0).toDouble());
    color_->setCurrentIndex(s.value(QStringLiteral("color"), 0).toInt());
    resize_->setCurrentIndex(s.value(QStringLiteral("resize"), 0).toInt());
    fill_->setValue(s.value(QStringLiteral("fill"), 0).toInt());
    layout_->setCurrentIndex(s.value(QStringLiteral("layout"), 0).toInt());
    scheme_->setCurrentText(s.value(QStringLiteral("scheme"), QStringLiteral("w8a8")).toString());
    // mmse: the README's recommended start (it measured best on the real checks); the CLI keeps minmax, RKNN-Toolkit2's
    // own default ("normal"), so scripts get what the converter would do.
    observer_->setCurrentText(s.value(QStringLiteral("observer"), QStringLiteral("mmse")).toString());
    rounding_->setCurrentText(s.value(QStringLiteral("weightRounding"), QStringLiteral("nearest")).toString());
    perChannel_->setChecked(s.value(QStringLiteral("perChannel"), true).toBool());
    groupSize_->setValue(s.value(QStringLiteral("groupSize"), 128).toInt());
    autoHybrid_->setChecked(s.value(QStringLiteral("autoHybrid"), false).toBool());
    hybridTarget_->setValue(s.value(QStringLiteral("hybridTarget"), 0.99).toDouble());
    maxSamples_->setValue(s.value(QStringLiteral("maxSamples"), 0).toInt());
    accuracySamples_->setValue(s.value(QStringLiteral("accuracySamples"), 4).toInt());
    s.endGroup();
}

void QuantizeDialog::saveSettings() const {
    QSettings s;
    s.beginGroup(QStringLiteral("quantize"));
    s.setValue(QStringLiteral("dataset"), dataset_->text());
    s.setValue(QStringLiteral("mean"), mean_->text());
    s.setValue(QStringLiteral("std"), std_->text());
    s.setValue(QStringLiteral("scale"), scale_->value());
    s.setValue(QStringLiteral("color"), color_->currentIndex());
    s.setValue(QStringLiteral("resize"), resize_->currentIndex());
    s.setValue(QStringLiteral("fill"), fill_->value());
    s.setValue(QStringLiteral("layout"), layout_->currentIndex());
    s.setValue(QStringLiteral("scheme"), scheme_->currentText());
    s.setValue(QStringLiteral("observer"), observer_->currentText());
    s.setValue(QStringLiteral("weightRounding"), rounding_->currentText());
    s.setValue(QStringLiteral("perChannel"), perChannel_->isChecked());
    s.setValue(QStringLiteral("groupSize"), groupSize_->value());
    s.setValue(QStringLiteral("autoHybrid"), autoHybrid_->isChecked());
    s.setValue(QStringLiteral("hybridTarget"), hybridTarget_->value());
    s.setValue(QStringLiteral("maxSamples"), maxSamples_->value());
    s.setValue(QStringLiteral("accuracySamples"), accuracySamples_->value());
    s.endGroup();
}

}  // namespace npuwb::ui
