// paged_attention_ref_p256u8.cu: the reference with other knobs (a measurement, not a lab file).
#define PA_PART 256
#define PA_UNROLL 8
#include "../../../reference/paged_attention.cu"
