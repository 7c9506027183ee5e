#include "tests/testing/hlo_fixtures.h"

#include "proto/xspace_builder.h"

namespace tbprof::hlo_test {

void AddMetadataPlane(tensorflow::profiler::XSpace& space,
                      const std::vector<std::pair<int64_t, xla::HloProto>>& modules) {
  XPlaneBuilder metadata = AddPlane(space, "/host:metadata");
  for (const auto& [program_id, proto] : modules) {
    auto& md = (*metadata.proto()->mutable_event_metadata())[program_id];
    md.set_id(program_id);
    md.set_name(proto.hlo_module().name());
    auto* stat = md.add_stats();
    stat->set_metadata_id(metadata.StatMetadataId("Hlo Proto"));
    stat->set_bytes_value(proto.SerializeAsString());
  }
}

xla::HloProto ChainModule(const std::string& name, int n) {
  xla::HloProto proto;
  xla::HloModuleProto* module = proto.mutable_hlo_module();
  module->set_name(name);
  module->set_entry_computation_name("main");
  module->set_entry_computation_id(1);
  xla::HloComputationProto* main = module->add_computations();
  main->set_name("main");
  main->set_id(1);
  for (int i = 0; i <= n; ++i) {
    xla::HloInstructionProto* inst = main->add_instructions();
    inst->set_id(i + 1);
    inst->set_name(i == 0 ? "p0" : "op." + std::to_string(i));
    inst->set_opcode(i == 0 ? "parameter" : "negate");
    inst->mutable_shape()->set_element_type(xla::F32);
    inst->mutable_shape()->add_dimensions(8);
    if (i > 0) {
      inst->add_operand_ids(i);
      inst->mutable_metadata()->set_op_name("jit(f)/neg");
      inst->mutable_metadata()->set_source_file("model.py");
      inst->mutable_metadata()->set_source_line(10 + i);
    }
    main->set_root_id(inst->id());
  }
  return proto;
}

}  // namespace tbprof::hlo_test
