// A fixed-delay line for the verifier's accuracy bench, for kernels without sch_netem.
module sandbox-runtime/verifier-delay-line

go 1.26.0
