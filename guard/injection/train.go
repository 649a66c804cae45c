package injection

import "math/rand/v2"

// TrainConfig sets how [Train] fits a model. The zero value of a field
// means its default.
type TrainConfig struct {
	Bits   uint    // hash bits: 2^Bits weights (DefaultBits)
	Epochs int     // passes over the examples (DefaultEpochs)
	Rate   float64 // initial learning rate (DefaultRate)
	L2     float64 // L2 penalty per example (DefaultL2)
	Seed   uint64  // seed of the order the examples are visited in (DefaultSeed)
}

// Defaults of TrainConfig.
const (
	DefaultBits   = 18
	DefaultEpochs = 30
	DefaultRate   = 0.5
	DefaultL2     = 1e-5
	DefaultSeed   = 4
)

func (c TrainConfig) withDefaults() TrainConfig {
	if c.Bits == 0 {
		c.Bits = DefaultBits
	}
	if c.Epochs == 0 {
		c.Epochs = DefaultEpochs
	}
	if c.Rate == 0 {
		c.Rate = DefaultRate
	}
	if c.L2 == 0 {
		c.L2 = DefaultL2
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	return c
}

// Train fits a logistic regression to the examples by stochastic gradient
// descent with an L2 penalty: the examples in an order drawn from
// cfg.Seed each epoch, the learning rate decaying as Rate/(1+Rate·L2·t).
// Classes are weighted so that each counts as much as the other. The same
// examples and configuration give the same model, bit for bit, on every
// machine (every product is rounded before it is added, so no fused
// multiply-add changes a result).
func Train(examples []Example, cfg TrainConfig) *Model {
	cfg = cfg.withDefaults()
	xs := make([]sparse, len(examples))
	ys := make([]float64, len(examples))
	var pos, neg float64
	for i, e := range examples {
		v, _ := fold(e.Text)
		xs[i] = featurize(v.s, cfg.Bits)
		if e.Injection {
			ys[i] = 1
			pos++
		} else {
			neg++
		}
	}
	weight := [2]float64{1, 1} // of a negative, of a positive
	if pos > 0 && neg > 0 {
		weight[0] = (pos + neg) / (2 * neg)
		weight[1] = (pos + neg) / (2 * pos)
	}
	// The weights are w = scale·v, so that the L2 shrinking of every
	// weight is one multiplication (Bottou's trick).
	v := make([]float64, 1<<cfg.Bits)
	scale, bias := 1.0, 0.0
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5a4e4144))
	t := 0.0
	for range cfg.Epochs {
		for _, i := range rng.Perm(len(xs)) {
			x := xs[i]
			rate := cfg.Rate / (1 + float64(cfg.Rate*cfg.L2)*t)
			z := bias
			for k, j := range x.idx {
				z += float64(scale * float64(v[j]*x.val[k]))
			}
			g := float64(sigmoid(z)-ys[i]) * weight[int(ys[i])]
			scale *= 1 - float64(rate*cfg.L2)
			step := float64(rate*g) / scale
			for k, j := range x.idx {
				v[j] -= float64(step * x.val[k])
			}
			bias -= float64(rate * g)
			t++
			if scale < 1e-9 {
				for j := range v {
					v[j] *= scale
				}
				scale = 1
			}
		}
	}
	m := &Model{bits: cfg.Bits, bias: bias, w: v}
	for j := range v {
		v[j] *= scale
	}
	// Round the weights as Encode stores them, so that the model trained
	// and the model decoded are the same.
	scale, q := m.quantize()
	for j, x := range q {
		m.w[j] = float64(x) * scale
	}
	return m
}
