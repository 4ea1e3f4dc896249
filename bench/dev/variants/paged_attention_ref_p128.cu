// paged_attention_ref_p128.cu: the reference with other knobs (a measurement, not a lab file).
#define PA_PART 128
#include "../../../reference/paged_attention.cu"
