#include "run/RunOptionsBar.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QSpinBox>

#include <algorithm>

#include "npuwb/Session.h"

namespace npuwb::ui {

namespace {
constexpr int kMaxContexts = 3;  // the runtime's (and the vendor's) limit
constexpr int kMaxBatch = 64;    // rknn_batch_size's range
const QString kAuto = QString::fromLatin1(kAutoBackend);
const QString kReference = QString::fromLatin1(kReferenceBackend);
}  // namespace

RunOptionsBar::RunOptionsBar(QWidget* parent)
    : QToolBar(tr("Run"), parent), runs_(new QSpinBox(this)), warmup_(new QSpinBox(this)),
      backend_(new QComboBox(this)), threads_(new QSpinBox(this)), coreMask_(new QComboBox(this)),
      contexts_(new QSpinBox(this)), batch_(new QSpinBox(this)), target_(new QComboBox(this)) {
    setObjectName(QStringLiteral("runToolBar"));  // saveState() needs a name
    const RunOptions defaults;
    runs_->setRange(1, 10000);
    runs_->setValue(defaults.runs);
    runs_->setToolTip(tr("Timed runs; layer times are the median over these"));
    warmup_->setRange(0, 1000);
    warmup_->setValue(defaults.warmup);
    warmup_->setToolTip(tr("Untimed runs first, to warm caches and allocators"));

    // "auto" is what the engine resolves it to here: the fastest plugin found, else the reference kernels.
    backend_->setObjectName(QStringLiteral("backendBox"));
    backend_->addItem(tr("auto (%1)").arg(QString::fromStdString(resolveBackendName(kAutoBackend))), kAuto);
    for (const std::string& name : availableBackends()) backend_->addItem(QString::fromStdString(name), QString::fromStdString(name));
    backend_->addItem(tr("reference (1 thread)"), kReference);
    backend_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    backend_->setToolTip(tr("What a local run executes on: a CPU backend plugin, or the single-threaded reference "
                            "kernels (the correctness oracle). On a board the agent picks the board's best backend."));
    threads_->setObjectName(QStringLiteral("threadsBox"));
    threads_->setRange(0, 256);
    threads_->setValue(defaults.executor.threads);
    threads_->setSpecialValueText(tr("auto"));
    threads_->setToolTip(tr("Worker threads of the backend plugin (auto: the %1 physical cores); the reference kernels "
                            "use one").arg(physicalCoreCount()));
    coreMask_->setObjectName(QStringLiteral("coreMaskBox"));
    for (NpuCoreMask m : {NpuCoreMask::Auto, NpuCoreMask::Core0, NpuCoreMask::Core1, NpuCoreMask::Core2,
                          NpuCoreMask::Cores01, NpuCoreMask::Cores012, NpuCoreMask::All})
        coreMask_->addItem(QString::fromLatin1(coreMaskName(m)), int(m));
    coreMask_->setToolTip(tr("Compiled models: the NPU cores each context runs on (auto: the runtime picks; "
                             "multi-core masks only on multi-core chips)"));
    contexts_->setObjectName(QStringLiteral("contextsBox"));
    const ModelRunOptions modelDefaults;
    contexts_->setRange(0, kMaxContexts);
    contexts_->setSpecialValueText(tr("auto"));
    contexts_->setToolTip(tr("Contexts run concurrently, sharing the weights (compiled models: rknn_dup_context; ONNX: "
                             "copies of the session sharing the backend's packed weights, the threads split among "
                             "them). At most three, and at most the batch: each context runs whole batch slices; auto: "
                             "from the batch"));
    batch_->setObjectName(QStringLiteral("batchBox"));
    batch_->setRange(1, kMaxBatch);
    batch_->setToolTip(tr("Samples per pass (ONNX: one model run each); the slices are spread round-robin over the "
                          "contexts, and Contexts auto derives from it as the vendor does (1 -> 1, 2 -> 2, >= 3 -> 3)"));
    setBatch(modelDefaults.batch);  // also bounds the contexts
    target_->setObjectName(QStringLiteral("runTargetBox"));
    target_->setToolTip(tr("Where Run (F5) profiles the model: this computer or a saved board (Boards tab)"));
    target_->setSizeAdjustPolicy(QComboBox::AdjustToContents);

    addSeparator();
    addWidget(new QLabel(tr(" Runs "), this));
    addWidget(runs_);
    addWidget(new QLabel(tr("  Warm-up "), this));
    addWidget(warmup_);
    // Only the group that applies to the open model shows: both would not fit a 1400-pixel window's toolbar row.
    // Contexts and batch apply to both (multi-context multi-batch runs on the NPU and on the CPU backends).
    auto addLabelled = [this](QList<QAction*>& group, const QString& label, QWidget* box) {
        group << addWidget(new QLabel(label, this)) << addWidget(box);
    };
    addLabelled(cpuActions_, tr("  Backend "), backend_);
    addLabelled(cpuActions_, tr("  Threads "), threads_);
    addLabelled(npuActions_, tr("  NPU cores "), coreMask_);
    addWidget(new QLabel(tr("  Contexts "), this));
    addWidget(contexts_);
    addWidget(new QLabel(tr("  Batch "), this));
    addWidget(batch_);
    addSeparator();
    addWidget(new QLabel(tr(" Target "), this));
    addWidget(target_);
    connect(runs_, &QSpinBox::valueChanged, this, &RunOptionsBar::optionsChanged);
    connect(warmup_, &QSpinBox::valueChanged, this, &RunOptionsBar::optionsChanged);
    connect(threads_, &QSpinBox::valueChanged, this, &RunOptionsBar::optionsChanged);
    connect(contexts_, &QSpinBox::valueChanged, this, &RunOptionsBar::optionsChanged);
    connect(batch_, &QSpinBox::valueChanged, this, [this](int batch) {
        setBatch(batch);
        emit optionsChanged();
    });
    connect(coreMask_, &QComboBox::currentIndexChanged, this, &RunOptionsBar::optionsChanged);
    setCompiledModel(false);
    connect(backend_, &QComboBox::currentIndexChanged, this, [this] {
        threads_->setEnabled(runs_->isEnabled() && !compiled_ && backend_->currentData().toString() != kReference);
        emit optionsChanged();
    });
}

RunOptions RunOptionsBar::options() const {
    RunOptions options;
    options.executor = {.backend = backend_->currentData().toString().toStdString(), .threads = threads_->value()};
    options.runs = runs_->value();
    options.warmup = warmup_->value();
    return options;
}

ModelRunOptions RunOptionsBar::modelRunOptions() const {
    ModelRunOptions options;
    options.runs = runs_->value();
    options.warmup = warmup_->value();
    options.coreMask = static_cast<NpuCoreMask>(coreMask_->currentData().toInt());
    options.contexts = contexts_->value();
    options.batch = batch_->value();
    return options;
}

void RunOptionsBar::setCoreMask(NpuCoreMask mask) {
    const int at = coreMask_->findData(int(mask));
    coreMask_->setCurrentIndex(at >= 0 ? at : 0);
}

void RunOptionsBar::setContexts(int contexts) {
    contexts_->setValue(contexts);  // clamped to the range setBatch left
}

void RunOptionsBar::setBatch(int batch) {
    batch_->setValue(batch);
    // More contexts than slices would leave a context without work, which the runtime refuses.
    contexts_->setMaximum(std::min(kMaxContexts, batch_->value()));
}

void RunOptionsBar::setCompiledModel(bool compiled) {
    compiled_ = compiled;
    for (QAction* a : std::as_const(cpuActions_)) a->setVisible(!compiled);
    for (QAction* a : std::as_const(npuActions_)) a->setVisible(compiled);
    setRunning(!runs_->isEnabled());
}

void RunOptionsBar::setRuns(int runs) {
    runs_->setValue(runs);
}

void RunOptionsBar::setWarmup(int warmup) {
    warmup_->setValue(warmup);
}

void RunOptionsBar::setBackend(const QString& name) {
    const int at = backend_->findData(name);
    backend_->setCurrentIndex(at >= 0 ? at : backend_->findData(kAuto));
}

void RunOptionsBar::setThreads(int threads) {
    threads_->setValue(threads);
}

void RunOptionsBar::setRunning(bool running) {
    for (QWidget* w : std::initializer_list<QWidget*>{runs_, warmup_, target_}) w->setEnabled(!running);
    backend_->setEnabled(!running && !compiled_);
    threads_->setEnabled(!running && !compiled_ && backend_->currentData().toString() != kReference);
    coreMask_->setEnabled(!running && compiled_);
    contexts_->setEnabled(!running);
    batch_->setEnabled(!running);
}

}  // namespace npuwb::ui
