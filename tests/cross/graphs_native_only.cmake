# Shared graphs whose model_<name> and cross_graph_<name> tests carry the
# label "native_only": .ci/run's two qemu-aarch64 passes leave them out, the
# Release and sanitizer passes run them. Each has a fixed 224x224 input
# (InnerProduct after a flatten), and one emulated run costs 7-22 CPU s
# (qemu's default CPU: vgg16 22, vgg16_int8 19, resnet50 12, alexnet 7.5),
# three runs per graph and pass, two passes: ~365 CPU s, all of the 6
# minutes that the 24 graphs added in November 2026 may cost CI. Their layer
# types run under qemu in the other graphs (3x3/1x1 and grouped
# convolutions, InnerProduct, LRN in googlenet, int8 in resnet50_int8).
set(KITE_GRAPHS_NATIVE_ONLY alexnet resnet50 vgg16 vgg16_int8)
