#include "models/ProbeInfoModel.h"

#include <QStringList>

#include "models/Format.h"

namespace npuwb::ui {

using nlohmann::json;

namespace {
const QString kAbsent = QObject::tr("absent");

QString text(const json& j, const char* key) {
    if (!j.is_object() || !j.contains(key) || j[key].is_null()) return kAbsent;
    const json& v = j[key];
    if (v.is_string()) return QString::fromStdString(v.get<std::string>());
    return QString::fromStdString(v.dump());
}

const json& field(const json& j, const char* key) {
    static const json null;
    return j.is_object() && j.contains(key) ? j[key] : null;
}

json kHzAsHz(const json& khz) {
    return khz.is_number() ? json(khz.get<double>() * 1e3) : json();
}

QString cpuList(const json& cpus) {
    QStringList parts;
    if (cpus.is_array())
        for (const json& c : cpus) parts << QString::number(c.get<int64_t>());
    return parts.join(QLatin1Char(','));
}
}  // namespace

QString formatHz(const json& hz) {
    if (!hz.is_number()) return kAbsent;
    const double v = hz.get<double>();
    if (v >= 1e9) return QStringLiteral("%1 GHz").arg(v / 1e9, 0, 'f', 2);
    if (v >= 1e6) return QStringLiteral("%1 MHz").arg(v / 1e6, 0, 'f', 0);
    return QStringLiteral("%1 kHz").arg(v / 1e3, 0, 'f', 0);
}

ProbeInfoModel::ProbeInfoModel(QObject* parent) : QStandardItemModel(parent) {
    setHorizontalHeaderLabels({tr("Property"), tr("Value")});
}

void ProbeInfoModel::clearAll() { removeRows(0, rowCount()); }

QStandardItem* ProbeInfoModel::section(const QString& title) const {
    for (int r = 0; r < rowCount(); ++r)
        if (item(r, 0)->text() == title) return item(r, 0);
    return nullptr;
}

QString ProbeInfoModel::value(const QString& title, const QString& key) const {
    QStandardItem* s = section(title);
    if (!s) return {};
    for (int r = 0; r < s->rowCount(); ++r)
        if (s->child(r, 0)->text() == key) return s->child(r, 1)->text();
    return {};
}

QStandardItem* ProbeInfoModel::addSection(const QString& title, const QString& summary) {
    auto* key = new QStandardItem(title);
    QFont bold = key->font();
    bold.setBold(true);
    key->setFont(bold);
    key->setEditable(false);
    auto* value = new QStandardItem(summary);
    value->setEditable(false);
    appendRow({key, value});
    return key;
}

void ProbeInfoModel::addRow(QStandardItem* parent, const QString& key, const QString& value) {
    auto* k = new QStandardItem(key);
    auto* v = new QStandardItem(value);
    k->setEditable(false);
    v->setEditable(false);
    v->setToolTip(value);
    parent->appendRow({k, v});
}

void ProbeInfoModel::setBasics(const QString& board, const QString& arch, const QString& kernel, const QString& note) {
    clearAll();
    QStandardItem* b = addSection(tr("Board"), board);
    addRow(b, tr("Architecture"), arch);
    addRow(b, tr("Kernel"), kernel);
    addRow(b, tr("Agent"), note);
}

void ProbeInfoModel::setProbe(const json& p) {
    clearAll();
    QStandardItem* board = addSection(tr("Board"), text(p, "board"));
    addRow(board, tr("Host name"), text(p, "hostname"));
    addRow(board, tr("Model"), text(p, "board"));
    addRow(board, tr("OS"), text(p, "os"));
    addRow(board, tr("Architecture"), text(p, "arch"));
    addRow(board, tr("Kernel"), text(p, "kernel"));

    const json& cpu = field(p, "cpu");
    QStandardItem* c = addSection(tr("CPU"), text(cpu, "model"));
    addRow(c, tr("Model"), text(cpu, "model"));
    addRow(c, tr("Online cores"), text(cpu, "online"));
    if (field(cpu, "policies").is_array())
        for (const json& pol : cpu["policies"]) {
            addRow(c, tr("%1 (CPU %2)").arg(text(pol, "name"), cpuList(field(pol, "cpus"))),
                   tr("%1, %2 (%3 – %4)")
                       .arg(text(pol, "governor"), formatHz(kHzAsHz(field(pol, "curFreqKHz"))),
                            formatHz(kHzAsHz(field(pol, "minFreqKHz"))), formatHz(kHzAsHz(field(pol, "maxFreqKHz")))));
        }

    const json& mem = field(p, "memory");
    const json& total = field(mem, "totalBytes");
    const json& avail = field(mem, "availableBytes");
    QStandardItem* m = addSection(tr("Memory"), total.is_number() ? formatBytes(total.get<int64_t>()) : kAbsent);
    addRow(m, tr("Total"), total.is_number() ? formatBytes(total.get<int64_t>()) : kAbsent);
    addRow(m, tr("Available"), avail.is_number() ? formatBytes(avail.get<int64_t>()) : kAbsent);

    const json& npu = field(p, "npu");
    const json& driver = field(npu, "driver");
    QStandardItem* n = addSection(tr("NPU"), driver.is_object() ? tr("driver %1").arg(text(driver, "version")) : kAbsent);
    addRow(n, tr("Driver"), driver.is_object() ? text(driver, "version") : kAbsent);
    if (driver.is_object()) addRow(n, tr("Driver file"), text(driver, "file"));
    QStringList load;
    if (field(npu, "load").is_array())
        for (size_t i = 0; i < npu["load"].size(); ++i)
            load << tr("core%1 %2%").arg(i).arg(QString::fromStdString(npu["load"][i].dump()));
    addRow(n, tr("Load"), load.isEmpty() ? kAbsent : load.join(QStringLiteral(", ")));
    addRow(n, tr("Frequency"), formatHz(field(npu, "freqHz")));
    addRow(n, tr("Governor"), text(npu, "governor"));

    const json& ddr = field(p, "ddr");
    QStandardItem* d = addSection(tr("DDR"), formatHz(field(ddr, "freqHz")));
    addRow(d, tr("Frequency"), formatHz(field(ddr, "freqHz")));
    addRow(d, tr("Governor"), text(ddr, "governor"));

    const json& rt = field(p, "librknnrt");
    const bool present = field(rt, "present").is_boolean() && rt["present"].get<bool>();
    QStandardItem* r = addSection(tr("librknnrt"), present ? text(rt, "version") : tr("not installed"));
    addRow(r, tr("Present"), present ? tr("yes") : tr("no"));
    if (present) {
        addRow(r, tr("Version"), text(rt, "version"));
        addRow(r, tr("Path"), text(rt, "path"));
    }

    const json& agent = field(p, "agent");
    QStandardItem* a = addSection(tr("Agent"), text(agent, "version"));
    addRow(a, tr("Version"), text(agent, "version"));
    addRow(a, tr("Protocol"), text(agent, "protocol"));
}

}  // namespace npuwb::ui
