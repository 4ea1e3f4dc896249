// paged_attention_tc_s2.cu: the reference with PA_STAGES 2 (a knob to measure, not a lab file).
#define PA_STAGES 2
#include "../../../reference/paged_attention.cu"
