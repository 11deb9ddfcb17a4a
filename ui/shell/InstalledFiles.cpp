#include "shell/InstalledFiles.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace npuwb::ui {

QString installedOrSourceFile(const QString& installed, const QString& inSource) {
    const QDir bin(QCoreApplication::applicationDirPath());
    const QString atPrefix = bin.filePath(QStringLiteral("../") + installed);
    if (QFileInfo::exists(atPrefix)) return QFileInfo(atPrefix).canonicalFilePath();
    for (QDir dir = bin; !dir.isRoot(); dir.cdUp())
        if (QFileInfo::exists(dir.filePath(QStringLiteral("engine/README.md"))))
            return QFileInfo::exists(dir.filePath(inSource)) ? QFileInfo(dir.filePath(inSource)).canonicalFilePath()
                                                             : QString();
    return {};
}

QStringList sampleModels() {
    const QString folder = installedOrSourceFile(QStringLiteral("share/npuwb/samples"), QStringLiteral("resources/samples"));
    if (folder.isEmpty()) return {};
    QStringList models;
    const QDir dir(folder);
    for (const QString& name : dir.entryList({QStringLiteral("*.onnx")}, QDir::Files, QDir::Name))
        models << dir.filePath(name);
    return models;
}

}  // namespace npuwb::ui
