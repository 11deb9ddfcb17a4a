#include "models/BoardSettings.h"

#include <QObject>
#include <QSettings>

#include <exception>

namespace npuwb::ui {

namespace {
const QString kGroup = QStringLiteral("boards");
}

QList<BoardEntry> loadBoards(QSettings& settings) {
    QList<BoardEntry> boards;
    const int n = settings.beginReadArray(kGroup);
    for (int i = 0; i < n; ++i) {
        settings.setArrayIndex(i);
        BoardEntry b;
        b.name = settings.value(QStringLiteral("name")).toString();
        b.host = settings.value(QStringLiteral("host")).toString();
        b.identityFile = settings.value(QStringLiteral("identityFile")).toString();
        b.knownHostsFile = settings.value(QStringLiteral("knownHostsFile")).toString();
        b.sshConfigFile = settings.value(QStringLiteral("sshConfigFile")).toString();
        b.remoteDir = settings.value(QStringLiteral("remoteDir")).toString();
        b.timeoutSec = qBound(1, settings.value(QStringLiteral("timeoutSec"), 30).toInt(), 86400);
        if (!b.host.isEmpty()) boards.append(b);  // a hand-edited file may hold junk rows
    }
    settings.endArray();
    return boards;
}

void saveBoards(QSettings& settings, const QList<BoardEntry>& boards) {
    settings.remove(kGroup);  // drop rows of boards removed since the last save
    settings.beginWriteArray(kGroup, static_cast<int>(boards.size()));
    for (int i = 0; i < boards.size(); ++i) {
        const BoardEntry& b = boards[i];
        settings.setArrayIndex(i);
        settings.setValue(QStringLiteral("name"), b.name);
        settings.setValue(QStringLiteral("host"), b.host);
        settings.setValue(QStringLiteral("identityFile"), b.identityFile);
        settings.setValue(QStringLiteral("knownHostsFile"), b.knownHostsFile);
        settings.setValue(QStringLiteral("sshConfigFile"), b.sshConfigFile);
        settings.setValue(QStringLiteral("remoteDir"), b.remoteDir);
        settings.setValue(QStringLiteral("timeoutSec"), b.timeoutSec);
    }
    settings.endArray();
    settings.sync();
}

remote::ConnectOptions connectOptionsFor(const BoardEntry& b) {
    remote::ConnectOptions o;
    o.target = remote::parseTarget(b.host.trimmed().toStdString());
    if (!b.identityFile.isEmpty()) o.identityFiles.push_back(b.identityFile.toStdString());
    o.knownHostsPath = b.knownHostsFile.toStdString();
    o.sshConfigPath = b.sshConfigFile.toStdString();
    o.connectTimeoutSec = b.timeoutSec;
    o.ioTimeoutSec = b.timeoutSec;
    return o;
}

remote::DeployOptions deployOptionsFor(const BoardEntry& b) {
    remote::DeployOptions o;
    o.remoteCacheDir = b.remoteDir.trimmed().toStdString();
    return o;
}

QString validateBoard(const BoardEntry& board, const QList<BoardEntry>& others) {
    if (board.name.trimmed().isEmpty()) return QObject::tr("Give the board a name.");
    for (const BoardEntry& o : others)
        if (o.name.compare(board.name.trimmed(), Qt::CaseInsensitive) == 0)
            return QObject::tr("There is already a board named \"%1\".").arg(o.name);
    if (board.host.trimmed().isEmpty()) return QObject::tr("Enter [user@]host[:port] or an ssh config alias.");
    try {
        remote::parseTarget(board.host.trimmed().toStdString());
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace npuwb::ui
