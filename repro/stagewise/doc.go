// Package stagewise reproduces the experiments of Pacchiano, Ghavamzadeh &
// Bartlett, "Contextual Bandits with Stage-wise Constraints", with `cbandit reproduce stagewise`.
package stagewise
