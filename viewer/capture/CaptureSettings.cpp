#include "viewer/capture/CaptureSettings.h"

#include "model/options/OptionDef.h"
#include "viewer/capture/OptionText.h"

namespace sl::viewer {

namespace {

const options::OptionDef* profileOption(const QString& name) {
    return options::findOption("profile", name.toStdString());
}

QString defaultOf(const QString& option) {
    const options::OptionDef* o = profileOption(option);
    return o ? optionText(o->defaultValue) : QString();
}

}  // namespace

QString CaptureSettings::value(const QString& option) const {
    if (auto it = options.find(option); it != options.end()) return *it;
    return defaultOf(option);
}

void CaptureSettings::set(const QString& option, const QString& v) {
    if (v == defaultOf(option))
        options.remove(option);
    else
        options.insert(option, v);
}

bool CaptureSettings::has(const QString& listOption, const QString& item) const {
    return value(listOption).split(',').contains(item);
}

void CaptureSettings::setItem(const QString& listOption, const QString& item, bool on) {
    QStringList items = value(listOption).split(',', Qt::SkipEmptyParts);
    items.removeAll("none");
    items.removeAll(item);
    if (on) items << item;
    // The definition's order, so that equal sets read the same ("cuda,nvtx", never "nvtx,cuda").
    QStringList ordered;
    if (const options::OptionDef* o = profileOption(listOption))
        for (const options::ValueDef& v : o->values) {
            const QString name = optionText(v.name);
            if (items.removeAll(name) > 0) ordered << name;
        }
    ordered << items;
    set(listOption, ordered.isEmpty() ? QStringLiteral("none") : ordered.join(','));
}

bool CaptureSettings::applies(const QString& option) const {
    const options::OptionDef* o = profileOption(option);
    if (!o || o->onlyWhen.option.empty()) return true;
    const QString other = optionText(o->onlyWhen.option);
    return o->onlyWhen.holds(value(other).toStdString()) && applies(other);
}

}  // namespace sl::viewer
