#include "convert/analysis/hlo/hlo_op_db.h"

namespace tbprof {

std::string HloOpDb::ProgramName(uint64_t program_id) const {
  const HloProgram* p = programs.Find(program_id);
  if (p == nullptr) return "main";
  // xprof names a program by its HLO module's own name and the id; the
  // metadata event's name may already carry the id ("jit_f(7)"), so it is
  // only the fallback for a module proto without a name.
  return ProgramDisplayName(p->module().name().empty() ? p->name() : p->module().name(), program_id);
}

}  // namespace tbprof
