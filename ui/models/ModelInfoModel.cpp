#include "models/ModelInfoModel.h"

#include <QFileInfo>

#include <algorithm>

#include "models/Format.h"
#include "models/InputShapes.h"
#include "models/OpTypeColors.h"

namespace npuwb::ui {

namespace {
const QString kRunSection = QStringLiteral("Last run");
const QString kRuntimeMemorySection = QStringLiteral("Runtime memory");

QString tensorLine(const TensorDesc& t) {
    return QStringLiteral("%1 %2").arg(QString::fromStdString(t.dataType), formatShape(t.shape));
}
}  // namespace

ModelInfoModel::ModelInfoModel(QObject* parent) : QStandardItemModel(parent) {
    setHorizontalHeaderLabels({tr("Property"), tr("Value")});
}

void ModelInfoModel::clearAll() {
    removeRows(0, rowCount());
}

QStandardItem* ModelInfoModel::section(const QString& title) const {
    for (int r = 0; r < rowCount(); ++r)
        if (item(r, 0)->text() == title) return item(r, 0);
    return nullptr;
}

QStandardItem* ModelInfoModel::addSection(const QString& title) {
    auto* key = new QStandardItem(title);
    QFont bold = key->font();
    bold.setBold(true);
    key->setFont(bold);
    key->setEditable(false);
    auto* value = new QStandardItem;
    value->setEditable(false);
    appendRow({key, value});
    return key;
}

void ModelInfoModel::addRow(QStandardItem* parent, const QString& key, const QString& value, const QString& tip) {
    auto* k = new QStandardItem(key);
    auto* v = new QStandardItem(value);
    k->setEditable(false);
    v->setEditable(false);
    k->setToolTip(tip.isEmpty() ? key : tip);
    // The panel elides long values (symbolic shapes): the tooltip always holds the whole value.
    v->setToolTip(tip.isEmpty() || tip == value ? value : value + QLatin1Char('\n') + tip);
    parent->appendRow({k, v});
}

void ModelInfoModel::setSummary(const ModelSummary& s, const QString& atShapes) {
    clearAll();
    const QString path = QString::fromStdString(s.path);
    QStandardItem* model = addSection(tr("Model"));
    addRow(model, tr("File"), QFileInfo(path).fileName(), path);
    if (!atShapes.isEmpty())
        addRow(model, tr("Shapes at"), atShapes,
               tr("Symbolic dims resolved for the input shapes chosen (Run > Input Shapes…): MACs and shapes below "
                  "are at these sizes"));
    if (!s.name.empty()) addRow(model, tr("Graph"), QString::fromStdString(s.name));
    if (!s.producer.empty()) addRow(model, tr("Producer"), QString::fromStdString(s.producer));
    addRow(model, tr("IR / opset"), QStringLiteral("%1 / %2").arg(s.irVersion).arg(s.opset));
    addRow(model, tr("Nodes"), QString::number(s.nodeCount));
    addRow(model, tr("Parameters"), formatCount(s.parameterCount), QString::number(s.parameterCount));
    addRow(model, tr("Weights"), formatBytes(s.weightBytes), QString::number(s.weightBytes) + tr(" bytes"));
    if (macsUnknown(s))  // MACs follow from shapes: known per layer after a run
        addRow(model, tr("MACs"), tr("unknown (symbolic input dims)"),
               tr("MACs depend on the input shape: run the model and read them per layer in the Layers table"));
    else if (!s.uncountedNodes.empty())
        addRow(model, tr("MACs"),
               tr("%1 + %2 uncounted").arg(formatCount(s.macs)).arg(s.uncountedNodes.size()),
               tr("Shapes of these nodes are known only after a run: %1")
                   .arg(QString::fromStdString(s.uncountedNodes.front()) +
                        (s.uncountedNodes.size() > 1 ? QStringLiteral(", ...") : QString())));
    else
        addRow(model, tr("MACs"), formatCount(s.macs), QString::number(s.macs));

    QStandardItem* inputs = addSection(tr("Inputs"));
    for (const auto& t : s.inputs) addRow(inputs, QString::fromStdString(t.name), tensorLine(t));
    QStandardItem* outputs = addSection(tr("Outputs"));
    for (const auto& t : s.outputs) addRow(outputs, QString::fromStdString(t.name), tensorLine(t));

    // Most frequent ops first: that is what a reader scans for.
    std::vector<std::pair<std::string, int64_t>> ops(s.opHistogram.begin(), s.opHistogram.end());
    std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    QStandardItem* histogram = addSection(tr("Operators"));
    for (const auto& [op, count] : ops) {
        const QString name = QString::fromStdString(op);
        addRow(histogram, name, QString::number(count));
        histogram->child(histogram->rowCount() - 1, 0)->setData(opTypeColor(name), Qt::DecorationRole);
    }
    item(histogram->row(), 1)->setText(tr("%1 types").arg(ops.size()));
}

void ModelInfoModel::setCompiledModel(const ModelSummary& s, const QString& runtime, const Report* report) {
    clearAll();
    const QString path = QString::fromStdString(s.path);
    QStandardItem* model = addSection(tr("Model"));
    addRow(model, tr("File"), QFileInfo(path).fileName(), path);
    addRow(model, tr("Kind"), tr("compiled %1 model").arg(QFileInfo(path).suffix().toUpper()),
           QString::fromStdString(s.producer));
    addRow(model, tr("Runs on"), tr("%1 runtime (board)").arg(runtime));
    addRow(model, tr("File size"), formatBytes(QFileInfo(path).size()));
    if (report && !report->model.producer.empty())
        addRow(model, tr("Runtime version"), QString::fromStdString(report->model.producer));
    const QString notYet = tr("run it on a board: the board's %1 runtime reports them").arg(runtime);
    QStandardItem* inputs = addSection(tr("Inputs"));
    QStandardItem* outputs = addSection(tr("Outputs"));
    for (auto [section, tensors] : {std::pair{inputs, report ? &report->model.inputs : nullptr},
                                    std::pair{outputs, report ? &report->model.outputs : nullptr}}) {
        if (!tensors || tensors->empty()) {
            addRow(section, tr("(not known yet)"), notYet);
            continue;
        }
        for (const auto& t : *tensors) addRow(section, QString::fromStdString(t.name), tensorLine(t));
        item(section->row(), 1)->setText(tr("from the runtime"));
    }
}

void ModelInfoModel::setRunResult(const Report& report, bool fromRuntime) {
    for (const QString& title : {kRunSection, kRuntimeMemorySection})
        if (QStandardItem* old = section(title)) removeRow(old->row());
    QStandardItem* run = addSection(kRunSection);
    item(run->row(), 1)->setText(formatMicros(report.run.medianUs));
    if (report.environment.device != "local") addRow(run, tr("Device"), QString::fromStdString(report.environment.device));
    addRow(run, tr("Median"), formatMicros(report.run.medianUs));
    addRow(run, tr("Min / max"),
           QStringLiteral("%1 / %2").arg(formatMicros(report.run.minUs), formatMicros(report.run.maxUs)));
    addRow(run, tr("Runs (warm-up)"), QStringLiteral("%1 (%2)").arg(report.run.runs).arg(report.run.warmup));
    if (!report.model.inputs.empty()) addRow(run, tr("Inputs"), inputShapesText(report.model, false));
    if (fromRuntime) {
        addRow(run, tr("Runtime"), tr("%1 (NPU)").arg(QString::fromStdString(report.environment.backend)));
    } else {
        addRow(run, tr("Backend"), QStringLiteral("%1, %2 thread(s)")
                                       .arg(QString::fromStdString(report.environment.backend))
                                       .arg(report.environment.threads));
        addRow(run, tr("Activation arena"), formatBytes(report.memory.arenaBytes));
    }
    if (report.memory.peakRssBytes > 0)
        addRow(run, tr("Process peak RSS"), formatBytes(report.memory.peakRssBytes),
               tr("the whole process that ran it (a run from the GUI counts the GUI too), not the model's memory"));
    if (report.runtime) {  // per context: weights once (shared by rknn_dup_context or the backend), internal each
        const RuntimeSection& rt = *report.runtime;
        QStandardItem* memory = addSection(kRuntimeMemorySection);
        item(memory->row(), 1)->setText(formatBytes(rt.totalBytes));
        addRow(memory, tr("Weights (shared)"), formatBytes(rt.weightBytes),
               QString::number(rt.weightBytes) + tr(" bytes"));
        for (const RuntimeContext& c : rt.contexts)
            addRow(memory, tr("Context %1 internal").arg(c.index), formatBytes(c.internalBytes),
                   tr("core mask %1").arg(QString::fromStdString(c.coreMask)));
        if (fromRuntime) addRow(memory, tr("Inputs + outputs"), formatBytes(report.memory.ioBytes));
        addRow(run, tr("Throughput"), tr("%1 samples/s (batch %2, %3 context(s))")
                                          .arg(rt.samplesPerSecond, 0, 'f', 1)
                                          .arg(rt.batch)
                                          .arg(rt.contexts.size()));
    } else if (fromRuntime) {  // the runtime's own memory query (RKNN_QUERY_MEM_SIZE)
        QStandardItem* memory = addSection(kRuntimeMemorySection);
        const MemorySummary& m = report.memory;
        item(memory->row(), 1)->setText(formatBytes(m.weightBytes + m.arenaBytes + m.ioBytes));
        addRow(memory, tr("Weights"), formatBytes(m.weightBytes), QString::number(m.weightBytes) + tr(" bytes"));
        addRow(memory, tr("Internal tensors"), formatBytes(m.arenaBytes), QString::number(m.arenaBytes) + tr(" bytes"));
        addRow(memory, tr("Inputs + outputs"), formatBytes(m.ioBytes), QString::number(m.ioBytes) + tr(" bytes"));
    }
}

}  // namespace npuwb::ui
