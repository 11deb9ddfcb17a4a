#include "models/InputShapes.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QMap>
#include <QObject>
#include <QRegularExpression>
#include <QSettings>

#include <algorithm>

#include "models/Format.h"

namespace npuwb::ui {

namespace {

// One settings key per model file: its absolute path hashed (a path holds '/' that QSettings reads as groups).
QString settingsKey(const QString& modelPath) {
    const QByteArray path = QFileInfo(modelPath).absoluteFilePath().toUtf8();
    return QStringLiteral("inputShapes/") +
           QString::fromLatin1(QCryptographicHash::hash(path, QCryptographicHash::Sha1).toHex());
}

bool fits(const DeclaredInput& input, const Shape& shape) {
    if (shape.size() != input.dims.size()) return false;
    for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] < 1 || (input.dims[i] >= 0 && input.dims[i] != shape[i])) return false;
    return true;
}

}  // namespace

bool DeclaredInput::symbolic() const {
    for (int64_t d : dims)
        if (d < 0) return true;
    return false;
}

std::vector<DeclaredInput> declaredInputs(const Model& model) {
    std::vector<DeclaredInput> out;
    for (const ValueInfo& in : model.graph.inputs) {
        if (model.graph.initializers.count(in.name) || in.type.kind != ValueType::Kind::Tensor) continue;
        DeclaredInput d{in.name, {}, {}};
        if (in.type.shape)
            for (const Dim& dim : *in.type.shape) {
                d.dims.push_back(dim.known() ? dim.value : -1);
                d.dimNames.push_back(dim.known() ? std::to_string(dim.value) : dim.symbol.empty() ? "?" : dim.symbol);
            }
        out.push_back(std::move(d));
    }
    return out;
}

QStringList dimRoles(const DeclaredInput& input) {
    const qsizetype rank = qsizetype(input.dims.size());
    QStringList roles(rank);
    // An image: a fixed channel count right after the batch (NCHW) or last (NHWC), the other dims free or sized.
    auto isChannels = [&](qsizetype i) { return input.dims[size_t(i)] == 1 || input.dims[size_t(i)] == 3 ||
                                                input.dims[size_t(i)] == 4; };
    if (rank == 4 && isChannels(1) && !isChannels(3))
        roles = {QStringLiteral("batch"), QStringLiteral("channels"), QStringLiteral("height"), QStringLiteral("width")};
    else if (rank == 4 && isChannels(3) && !isChannels(1))
        roles = {QStringLiteral("batch"), QStringLiteral("height"), QStringLiteral("width"), QStringLiteral("channels")};
    // A name the exporter gave wins over the layout guess; generated names ("p2o.DynamicDimension.0", "unk__12",
    // "s0") say nothing.
    static const QRegularExpression word(QStringLiteral("^[A-Za-z][A-Za-z_ ]*[A-Za-z]$|^[NCHWLTBS]$"));
    static const QMap<QString, QString> letters = {
        {QStringLiteral("N"), QStringLiteral("batch")},    {QStringLiteral("B"), QStringLiteral("batch")},
        {QStringLiteral("C"), QStringLiteral("channels")}, {QStringLiteral("H"), QStringLiteral("height")},
        {QStringLiteral("W"), QStringLiteral("width")},    {QStringLiteral("L"), QStringLiteral("length")},
        {QStringLiteral("T"), QStringLiteral("time")},     {QStringLiteral("S"), QStringLiteral("sequence")}};
    for (qsizetype i = 0; i < rank && i < qsizetype(input.dimNames.size()); ++i) {
        const QString name = QString::fromStdString(input.dimNames[size_t(i)]);
        if (input.dims[size_t(i)] >= 0 || !word.match(name).hasMatch() || name.startsWith(QLatin1String("unk")))
            continue;
        roles[i] = letters.value(name, QString(name).replace(QLatin1Char('_'), QLatin1Char(' ')));
    }
    return roles;
}

bool hasSymbolicInputs(const std::vector<DeclaredInput>& inputs) {
    for (const DeclaredInput& in : inputs)
        if (in.symbolic()) return true;
    return false;
}

bool coversSymbolicInputs(const std::vector<DeclaredInput>& inputs, const InputShapeMap& shapes) {
    for (const DeclaredInput& in : inputs) {
        if (!in.symbolic()) continue;
        const auto it = shapes.find(in.name);
        if (it == shapes.end() || !fits(in, it->second)) return false;
    }
    return true;
}

namespace {
QString declaredText(const DeclaredInput& in) {
    QStringList dims;
    for (int64_t d : in.dims) dims << (d < 0 ? QStringLiteral("?") : QString::number(d));
    return QStringLiteral("%1 [%2]").arg(QString::fromStdString(in.name), dims.join(QLatin1Char(',')));
}
}  // namespace

QString givenShapesProblem(const std::vector<DeclaredInput>& inputs, const InputShapeMap& shapes) {
    for (const auto& [name, dims] : shapes) {
        const auto in =
            std::find_if(inputs.begin(), inputs.end(), [&](const DeclaredInput& i) { return i.name == name; });
        if (in == inputs.end()) {
            QStringList names;
            for (const DeclaredInput& i : inputs) names << QString::fromStdString(i.name);
            return QObject::tr("the model has no input '%1' (inputs: %2)")
                .arg(QString::fromStdString(name), names.join(QStringLiteral(", ")));
        }
        if (!fits(*in, dims))
            return QObject::tr("input %1: [%2] does not fit what it declares").arg(declaredText(*in), dimsText(dims));
    }
    return {};
}

QString missingShapesProblem(const std::vector<DeclaredInput>& inputs, const InputShapeMap& shapes) {
    for (const DeclaredInput& in : inputs)
        if (in.symbolic() && !shapes.count(in.name))
            return QObject::tr("input %1 has symbolic dims: give them with --input-shape %2=D1,D2,...")
                .arg(declaredText(in), QString::fromStdString(in.name));
    return {};
}

InputShapeMap shapesFromMetadata(const Model& model) {
    InputShapeMap shapes;
    auto it = model.metadata.find("input_shapes");
    if (it == model.metadata.end()) it = model.metadata.find("input_shape");
    if (it == model.metadata.end()) return shapes;
    const std::vector<DeclaredInput> inputs = declaredInputs(model);
    for (const QString& part : QString::fromStdString(it->second).split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        const qsizetype eq = part.indexOf(QLatin1Char('='));
        const std::string name = eq < 0 ? (inputs.size() == 1 ? inputs.front().name : std::string())
                                        : part.left(eq).trimmed().toStdString();
        const Shape dims = parseDims(eq < 0 ? part : part.mid(eq + 1));
        if (!name.empty() && !dims.empty()) shapes[name] = dims;
    }
    return shapes;
}

InputShapeMap rememberedShapes(QSettings& settings, const QString& modelPath) {
    InputShapeMap shapes;
    settings.beginGroup(settingsKey(modelPath));
    for (const QString& name : settings.childKeys()) {
        const Shape dims = parseDims(settings.value(name).toString());
        if (!dims.empty()) shapes[QByteArray::fromHex(name.toLatin1()).toStdString()] = dims;
    }
    settings.endGroup();
    return shapes;
}

void rememberShapes(QSettings& settings, const QString& modelPath, const InputShapeMap& shapes) {
    settings.remove(settingsKey(modelPath));
    settings.beginGroup(settingsKey(modelPath));
    for (const auto& [name, dims] : shapes)  // input names may hold '/' too: stored hex-encoded
        settings.setValue(QString::fromLatin1(QByteArray::fromStdString(name).toHex()), dimsText(dims));
    settings.endGroup();
}

InputShapeMap prefillShapes(const Model& model, const QString& modelPath, const InputShapeMap& current,
                            QSettings& settings, QString* source) {
    const std::vector<DeclaredInput> inputs = declaredInputs(model);
    if (!current.empty()) {
        *source = QObject::tr("the shapes in use");
        return current;
    }
    if (InputShapeMap last = rememberedShapes(settings, modelPath); coversSymbolicInputs(inputs, last)) {
        *source = QObject::tr("last used with this file");
        return last;
    }
    if (InputShapeMap meta = shapesFromMetadata(model); coversSymbolicInputs(inputs, meta)) {
        *source = QObject::tr("from the model's metadata");
        return meta;
    }
    source->clear();
    return {};
}

Shape parseDims(const QString& text) {
    Shape dims;
    QString inner = text.trimmed();
    if (inner.startsWith(QLatin1Char('[')) && inner.endsWith(QLatin1Char(']'))) inner = inner.mid(1, inner.size() - 2);
    for (const QString& part : inner.split(QLatin1Char(','))) {
        bool ok = false;
        const qlonglong v = part.trimmed().toLongLong(&ok);
        if (!ok || v < 1) return {};
        dims.push_back(v);
    }
    return dims;
}

QString dimsText(const Shape& shape) {
    QStringList parts;
    for (int64_t d : shape) parts << QString::number(d);
    return parts.join(QLatin1Char(','));
}

QString inputShapesText(const InputShapeMap& shapes) {
    QStringList parts;
    for (const auto& [name, dims] : shapes)
        parts << QStringLiteral("input %1 %2").arg(QString::fromStdString(name), formatShape(dims));
    return parts.join(QStringLiteral(", "));
}

QString inputShapesText(const ModelSummary& model, bool word) {
    QStringList parts;
    for (const TensorDesc& in : model.inputs)
        parts << (word ? QStringLiteral("input %1 %2") : QStringLiteral("%1 %2"))
                     .arg(QString::fromStdString(in.name), formatShape(in.shape));
    return parts.join(QStringLiteral(", "));
}

}  // namespace npuwb::ui
