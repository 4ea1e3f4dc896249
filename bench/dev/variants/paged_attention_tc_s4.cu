// paged_attention_tc_s4.cu: the reference with PA_STAGES 4 (a knob to measure, not a lab file).
#define PA_STAGES 4
#include "../../../reference/paged_attention.cu"
