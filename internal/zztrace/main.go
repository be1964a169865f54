package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/suite"
)

func main() {
	prob, algo := os.Args[1], os.Args[2]
	seed, _ := strconv.Atoi(os.Args[3])
	batch, _ := strconv.Atoi(os.Getenv("BATCH"))
	s, err := suite.StartServer()
	if err != nil {
		panic(err)
	}
	defer s.Close()
	job := suite.Job{Problem: prob, Algorithm: algo, Units: "natural", Seed: seed, Batch: batch}
	r, err := suite.RunOne(context.Background(), s.Client, job, 200, nil)
	if err != nil {
		panic(err)
	}
	p, _ := problem.SuiteByName(prob)
	fa, _ := p.Facts()
	cons := make([]float64, len(p.Constraints))
	rf := fa.ObjRange[1] - fa.ObjRange[0]
	every, _ := strconv.Atoi(os.Getenv("EVERY"))
	if every == 0 {
		every = 10
	}
	for i, x := range r.Points {
		f := p.Sign() * p.Eval(x, cons)
		reg := (p.Sign()*fa.Opt - f) / rf
		g := make([]float64, len(cons))
		for j, c := range cons {
			g[j] = c - p.Constraints[j].Threshold
		}
		if (i+1)%every == 0 {
			fmt.Printf("t=%3d reg=%.4f g=%.3g x=%.4g\n", i+1, reg, g, x)
		}
	}
	fmt.Println("late", r.Regret, r.Violation, "opt", fa.Opt, "range", rf, math.NaN())
}
