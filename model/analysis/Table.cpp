#include "model/analysis/Table.h"

namespace sl::analysis {

size_t TableColumn::size() const {
    switch (type) {
        case CellType::Int: return ints.size();
        case CellType::Real: return reals.size();
        case CellType::Text: return texts.size();
    }
    return 0;
}

size_t Table::addColumn(std::string colName, CellType type, Measure measure, int decimals) {
    TableColumn c;
    c.name = std::move(colName);
    c.type = type;
    c.measure = measure;
    c.decimals = decimals;
    columns.push_back(std::move(c));
    return columns.size() - 1;
}

std::string Table::header(size_t col, const std::string& timeUnit) const {
    const TableColumn& c = columns[col];
    switch (c.measure) {
        case Measure::Duration:
        case Measure::Timestamp: return c.name + " (" + timeUnit + ")";
        case Measure::Percent: return c.name + " (%)";
        case Measure::Id:
        case Measure::None: break;
    }
    return c.name;
}

int Table::findColumn(const std::string& colName) const {
    for (size_t i = 0; i < columns.size(); ++i)
        if (columns[i].name == colName || header(i) == colName) return static_cast<int>(i);
    return -1;
}

TableColumn& Table::RowWriter::next() { return m_t.columns.at(m_col++); }

Table::RowWriter& Table::RowWriter::i(int64_t v) {
    TableColumn& c = next();
    if (c.type == CellType::Real) c.reals.push_back(static_cast<double>(v));
    else c.ints.push_back(v);
    if (!c.nulls.empty()) c.nulls.push_back(0);
    return *this;
}

Table::RowWriter& Table::RowWriter::r(double v) {
    TableColumn& c = next();
    if (c.type == CellType::Int) c.ints.push_back(static_cast<int64_t>(v));
    else c.reals.push_back(v);
    if (!c.nulls.empty()) c.nulls.push_back(0);
    return *this;
}

Table::RowWriter& Table::RowWriter::t(std::string v) {
    TableColumn& c = next();
    c.texts.push_back(std::move(v));
    if (!c.nulls.empty()) c.nulls.push_back(0);
    return *this;
}

Table::RowWriter& Table::RowWriter::null() {
    TableColumn& c = next();
    const size_t row = c.size();
    if (c.nulls.empty()) c.nulls.assign(row, 0);
    c.nulls.push_back(1);
    switch (c.type) {
        case CellType::Int: c.ints.push_back(0); break;
        case CellType::Real: c.reals.push_back(0); break;
        case CellType::Text: c.texts.emplace_back(); break;
    }
    return *this;
}

namespace {
template <class T>
void permuteVec(std::vector<T>& v, const std::vector<uint32_t>& order) {
    if (v.empty()) return;
    std::vector<T> out;
    out.reserve(order.size());
    for (uint32_t i : order) out.push_back(std::move(v[i]));
    v.swap(out);
}
}  // namespace

void Table::permute(const std::vector<uint32_t>& order) {
    for (auto& c : columns) {
        permuteVec(c.ints, order);
        permuteVec(c.reals, order);
        permuteVec(c.texts, order);
        permuteVec(c.nulls, order);
    }
}

Table Table::skip(std::string name, std::string title, std::string reason) {
    Table t(std::move(name), std::move(title));
    t.skipped = std::move(reason);
    return t;
}

}  // namespace sl::analysis
