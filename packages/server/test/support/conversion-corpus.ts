// The conversion corpus: real models shipped inside installed npm packages, plus the small generated
// models of the tests (one per format no package ships). Shared by the bench and the docs' table.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { NodeIO } from '@gltf-transform/core'
import { strToU8, zipSync } from 'fflate'
import { importMesh } from '../../src/modules/conversion/pipeline/importers/mesh.ts'
import * as generated from './conversion-models.ts'
import { ifcRepeatedWindows, repeatedPartsGlb } from './conversion-repeats.ts'
import { pmndrsGlb, readPackageFile } from './gltf.ts'

export interface CorpusModel {
  /** File name, as uploaded (its extension selects the importer). */
  name: string
  /** Where it comes from, for the table. */
  source: string
  load(): Promise<Uint8Array>
}

const assimpExamples = 'examples/testfiles'

export const CORPUS: CorpusModel[] = [
  { name: 'suzi.glb', source: '@pmndrs/assets (Draco)', load: () => pmndrsGlb('suzi') },
  { name: 'bunny.glb', source: '@pmndrs/assets (Draco)', load: () => pmndrsGlb('bunny') },
  { name: 'pmndrs.glb', source: '@pmndrs/assets (Draco, JPEG)', load: () => pmndrsGlb('pmndrs') },
  { name: 'car.glb', source: 'generated: 12 nodes, shared meshes', load: carGlb },
  { name: 'pterosaur.glb', source: 'node-stl Pterosaur_FDM as plain GLB', load: pterosaurGlb },
  { name: 'screws.glb', source: 'generated: 20 parts, a mesh copy each', load: () => repeatedPartsGlb(20) },
  { name: 'car.gltf', source: 'generated: embedded glTF', load: generated.embeddedGltf },
  { name: 'panel.zip', source: 'generated: glTF + .bin + PNG', load: gltfZip },
  { name: 'Pterosaur_FDM.stl', source: 'node-stl (binary, 10 MB)', load: pterosaurStl },
  {
    name: 'ship.stl',
    source: 'stl (binary)',
    load: async () => readPackageFile('stl', 'test/binary/ship.stl'),
  },
  {
    name: 'teapot.stl',
    source: 'stl (ASCII)',
    load: async () => readPackageFile('stl', 'test/ascii/teapot.stl'),
  },
  { name: 'cube.ply', source: 'generated: ASCII PLY', load: async () => strToU8(generated.plyCube()) },
  { name: 'parts.obj', source: 'generated: OBJ', load: async () => strToU8(generated.objTwoParts()) },
  { name: 'cube.zip', source: 'assimpjs: OBJ + MTL + PNG', load: objZip },
  {
    name: 'cube.3ds',
    source: 'assimpjs: 3DS',
    load: async () => readPackageFile('assimpjs', `${assimpExamples}/cube_with_materials.3ds`),
  },
  { name: 'pyramid.fbx', source: 'generated: ASCII FBX', load: async () => strToU8(generated.fbxPyramid()) },
  { name: 'bracket.3mf', source: 'generated: 3MF', load: async () => generated.threeMfTetrahedron() },
  { name: 'scene.dae', source: 'generated: COLLADA', load: async () => strToU8(generated.daeTwoTriangles()) },
  {
    name: 'as1-oc-214.stp',
    source: 'occt-import-js: STEP assembly',
    load: async () => occt('cax-if/as1-oc-214.stp'),
  },
  { name: 'cube.igs', source: 'occt-import-js: IGES', load: async () => occt('cube-10x10mm/Cube 10x10.igs') },
  {
    name: 'as1_pe_203.brep',
    source: 'occt-import-js: BREP',
    load: async () => occt('cax-if-brep/as1_pe_203.brep'),
  },
  {
    name: 'small-house.ifc',
    source: 'hand-written IFC4 (test/fixtures)',
    load: async () =>
      new Uint8Array(readFileSync(path.join(import.meta.dirname, '../fixtures/conversion/small-house.ifc'))),
  },
  {
    name: 'windows.ifc',
    source: 'generated IFC4: 20 windows, one mapped shape',
    load: async () => ifcRepeatedWindows(20),
  },
]

function occt(relativePath: string): Uint8Array {
  return readPackageFile('occt-import-js', `test/testfiles/${relativePath}`)
}

async function pterosaurStl(): Promise<Uint8Array> {
  return readPackageFile('node-stl', 'test/test_data/Pterosaur_FDM.stl')
}

function carGlb(): Promise<Uint8Array> {
  return new NodeIO().writeBinary(generated.carDocument())
}

/** A heavy GLB input: the 10 MB STL's 200 k triangles as an unwelded, uncompressed float GLB. */
async function pterosaurGlb(): Promise<Uint8Array> {
  const document = await importMesh({
    name: 'Pterosaur_FDM.stl',
    bytes: await pterosaurStl(),
    files: new Map(),
  })
  return new NodeIO().writeBinary(document)
}

async function gltfZip(): Promise<Uint8Array> {
  const { gltf, bin, png } = await generated.separateGltf()
  return zipSync({ 'scene.gltf': gltf, 'scene.bin': bin, 'textures/checker.png': png })
}

async function objZip(): Promise<Uint8Array> {
  return zipSync({
    'cube_with_materials.obj': readPackageFile('assimpjs', `${assimpExamples}/cube_with_materials.obj`),
    'cube_with_materials.mtl': readPackageFile('assimpjs', `${assimpExamples}/cube_with_materials.mtl`),
    'cube_texture.png': readPackageFile('assimpjs', `${assimpExamples}/cube_texture.png`),
  })
}
