// One conversion in its own process, as production runs it (the job runner forks a child per job):
//   node bench/conversion-entry.ts <input file> <output.glb>
// Prints the result's stats as one JSON line on stdout.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { convertModel } from '../packages/server/src/modules/conversion/pipeline/convert.ts'

const [inputPath, outputPath] = process.argv.slice(2)
if (!inputPath || !outputPath) {
  console.error('usage: conversion-entry.ts <input> <output.glb>')
  process.exit(2)
}
const result = await convertModel({
  name: path.basename(inputPath),
  bytes: new Uint8Array(readFileSync(inputPath)),
})
writeFileSync(outputPath, result.glb)
process.stdout.write(`${JSON.stringify(result.stats)}\n`)
