#pragma once
// A result table of a stats report or a diff: typed columns (integers, reals, text, with
// nulls), a name and a title, or a "skipped" reason when the report's data is absent. The
// same Table feeds the CLI formatter (column/table/csv/tsv/json) and the GUI's Stats dock.
// Values are stored in report units (ns, bytes); TableFormatter applies --timeunit.
#include <cstdint>
#include <string>
#include <vector>

namespace sl::analysis {

enum class CellType : uint8_t { Int, Real, Text };

// What a numeric column measures, for unit conversion and header suffixes.
enum class Measure : uint8_t {
    None,       // counts, ids, plain numbers
    Duration,   // nanoseconds; header gets " (ns)" (or the --timeunit)
    Timestamp,  // nanoseconds on the report clock; same suffix rules as Duration
    Percent,    // header gets " (%)"
    Id,         // pids, tids, correlation ids: printed without thousands separators
};

struct TableColumn {
    std::string name;  // without the unit suffix: "Total Time"
    CellType type = CellType::Int;
    Measure measure = Measure::None;
    int decimals = 0;  // for Real columns, as printed
    std::vector<int64_t> ints;
    std::vector<double> reals;
    std::vector<std::string> texts;
    std::vector<uint8_t> nulls;  // empty while no value is null; else one flag per row

    bool isNull(size_t row) const { return !nulls.empty() && nulls[row]; }
    size_t size() const;
};

class Table {
public:
    std::string name;     // "cuda_gpu_kern_sum"
    std::string title;    // "CUDA GPU Kernel Summary"
    std::string skipped;  // non-empty: the report did not run, and this says why
    std::vector<TableColumn> columns;

    Table() = default;
    Table(std::string name, std::string title) : name(std::move(name)), title(std::move(title)) {}

    size_t addColumn(std::string colName, CellType type, Measure measure = Measure::None, int decimals = 0);
    size_t intCol(std::string n, Measure m = Measure::None) { return addColumn(std::move(n), CellType::Int, m); }
    size_t idCol(std::string n) { return addColumn(std::move(n), CellType::Int, Measure::Id); }
    size_t realCol(std::string n, Measure m = Measure::None, int d = 1) { return addColumn(std::move(n), CellType::Real, m, d); }
    size_t textCol(std::string n) { return addColumn(std::move(n), CellType::Text); }

    size_t rowCount() const { return columns.empty() ? 0 : columns[0].size(); }
    // Header as printed for a time unit suffix such as "ns": "Total Time (ns)".
    std::string header(size_t col, const std::string& timeUnit = "ns") const;
    int findColumn(const std::string& colName) const;  // -1 if absent

    // Appends one row, value by value, in column order.
    class RowWriter {
    public:
        explicit RowWriter(Table& t) : m_t(t) {}
        RowWriter& i(int64_t v);
        RowWriter& r(double v);
        RowWriter& t(std::string v);
        RowWriter& null();

    private:
        TableColumn& next();
        Table& m_t;
        size_t m_col = 0;
    };
    RowWriter row() { return RowWriter(*this); }

    // Reorders rows: this[k] = old[order[k]].
    void permute(const std::vector<uint32_t>& order);
    // A skipped table with a reason (the report's data is absent).
    static Table skip(std::string name, std::string title, std::string reason);
};

}  // namespace sl::analysis
