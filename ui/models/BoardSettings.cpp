#include "models/BoardSettings.h"

#include <QObject>
#include <QSettings>

#include <exception>

#include "ssh/Target.h"

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
        remote::BoardOptions& c = b.connection;
        c.host = settings.value(QStringLiteral("host")).toString().trimmed().toStdString();
        const QString identity = settings.value(QStringLiteral("identityFile")).toString();
        if (!identity.isEmpty()) c.identityFiles = {identity.toStdString()};
        c.knownHostsPath = settings.value(QStringLiteral("knownHostsFile")).toString().toStdString();
        c.sshConfigPath = settings.value(QStringLiteral("sshConfigFile")).toString().toStdString();
        c.remoteDir = settings.value(QStringLiteral("remoteDir")).toString().trimmed().toStdString();
        c.timeoutSec = qBound(1, settings.value(QStringLiteral("timeoutSec"), c.timeoutSec).toInt(), 86400);
        if (!c.host.empty()) boards.append(b);  // a hand-edited file may hold junk rows
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
        const remote::BoardOptions& c = b.connection;
        settings.setValue(QStringLiteral("host"), QString::fromStdString(c.host));
        settings.setValue(QStringLiteral("identityFile"),
                          c.identityFiles.empty() ? QString() : QString::fromStdString(c.identityFiles.front()));
        settings.setValue(QStringLiteral("knownHostsFile"), QString::fromStdString(c.knownHostsPath));
        settings.setValue(QStringLiteral("sshConfigFile"), QString::fromStdString(c.sshConfigPath));
        settings.setValue(QStringLiteral("remoteDir"), QString::fromStdString(c.remoteDir));
        settings.setValue(QStringLiteral("timeoutSec"), c.timeoutSec);
    }
    settings.endArray();
    settings.sync();
}

QString validateBoard(const BoardEntry& board, const QList<BoardEntry>& others) {
    if (board.name.trimmed().isEmpty()) return QObject::tr("Give the board a name.");
    for (const BoardEntry& o : others)
        if (o.name.compare(board.name.trimmed(), Qt::CaseInsensitive) == 0)
            return QObject::tr("There is already a board named \"%1\".").arg(o.name);
    if (QString::fromStdString(board.connection.host).trimmed().isEmpty())
        return QObject::tr("Enter [user@]host[:port] or an ssh config alias.");
    try {
        remote::parseTarget(board.connection.host);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace npuwb::ui
