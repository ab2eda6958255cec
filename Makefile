# webnx — the two commands a newcomer needs:
#   make demo   builds the wasm runtime and classifies real input with a MobileNet-class model
#   make test   builds everything and runs every test
# Both install what is missing (Debian packages, npm devDependencies, protobuf's source).

SHELL := /bin/bash
ROOT := $(CURDIR)
BUILD := $(ROOT)/build
NATIVE := $(BUILD)/native
ASAN := $(BUILD)/native-asan
WASM := $(BUILD)/wasm
WASM_MT := $(BUILD)/wasm-mt
WASM_RELAXED := $(BUILD)/wasm-relaxed
WASM_RELAXED_MT := $(BUILD)/wasm-relaxed-mt
MODELS := $(BUILD)/models
PROTOBUF_SRC := $(BUILD)/third_party/protobuf-3.21.12
PYTHON := /usr/bin/python3
JOBS ?= 2
NODE_TESTS := ../shared/onnx-node-tests
VERSION := $(shell node -p "require('./package.json').version" 2>/dev/null)

.PHONY: all setup native wasm wasm-mt wasm-relaxed wasm-relaxed-mt models quant-models demo test test-native test-types test-sanitizers test-wasm-units test-conformance test-node package \
        test-browser serve bench fuzz fuzz-diff format clean

all: native wasm

setup:
	@bash scripts/setup-system.sh
	@bash scripts/fetch-protobuf-src.sh
	@if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then \
	  npm ci --ignore-scripts --no-audit --no-fund; fi

native: setup
	@[ -f $(NATIVE)/build.ninja ] || cmake -S . -B $(NATIVE) -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build $(NATIVE) -j$(JOBS)

wasm: setup
	@[ -f $(WASM)/build.ninja ] || emcmake cmake -S . -B $(WASM) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_CROSSCOMPILING_EMULATOR="/usr/bin/node;--no-experimental-fetch" \
	  -DWEBNX_PROTOBUF_SRC=$(PROTOBUF_SRC)
	cmake --build $(WASM) --target webnx -j$(JOBS)
	@mkdir -p dist
	@cp -u $(WASM)/webnx.mjs $(WASM)/webnx.wasm dist/
	@echo "webnx.wasm: $$(stat -c %s dist/webnx.wasm) bytes ($$(gzip -9 -c dist/webnx.wasm | wc -c) gzipped)"

# The multi-threaded build (its own -pthread protobuf), shipped beside the single-threaded one
# in dist/mt/, whose package.json keeps Emscripten's CommonJS worker script out of ESM scope.
# That script requires fs and worker_threads when it runs in Node: as (0,require)(...) webpack
# leaves them to run time (a warning) instead of failing to resolve them in browser bundles.
PATCH_WORKER := sed -i 's/require("\(fs\|worker_threads\)")/(0,require)("\1")/g'
wasm-mt: setup
	@[ -f $(WASM_MT)/build.ninja ] || emcmake cmake -S . -B $(WASM_MT) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_CROSSCOMPILING_EMULATOR="/usr/bin/node;--no-experimental-fetch" \
	  -DWEBNX_PROTOBUF_SRC=$(PROTOBUF_SRC) -DWEBNX_THREADS=ON
	cmake --build $(WASM_MT) --target webnx -j$(JOBS)
	@mkdir -p dist/mt
	@cp -u $(WASM_MT)/webnx-mt.mjs $(WASM_MT)/webnx-mt.wasm $(WASM_MT)/webnx-mt.worker.js dist/mt/
	@$(PATCH_WORKER) dist/mt/webnx-mt.worker.js
	@echo '{"type":"commonjs"}' > dist/mt/package.json
	@echo "webnx-mt.wasm: $$(stat -c %s dist/mt/webnx-mt.wasm) bytes ($$(gzip -9 -c dist/mt/webnx-mt.wasm | wc -c) gzipped)"

# The relaxed-SIMD builds (fused multiply-add; docs/architecture.md, "Builds"), compiled by LLVM
# 16 and linked without binaryen (CMakeLists.txt, WEBNX_RELAXED); npm's binaryen, which reads
# relaxed opcodes, then shrinks them as the -Os link does the others. --reorder-functions, which
# emcc runs after its own link, gives the most-called functions the shortest indices: 18.8 KB.
RELAXED_FEATURES := --enable-simd --enable-relaxed-simd --enable-bulk-memory --enable-sign-ext \
  --enable-mutable-globals --enable-nontrapping-float-to-int
RELAXED_OPT := node_modules/.bin/wasm-opt --post-emscripten -Os --one-caller-inline-max-function-size=40 \
  --low-memory-unused --reorder-functions --strip-target-features

wasm-relaxed: setup
	@[ -f $(WASM_RELAXED)/build.ninja ] || emcmake cmake -S . -B $(WASM_RELAXED) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_CROSSCOMPILING_EMULATOR="/usr/bin/node;--no-experimental-fetch" \
	  -DWEBNX_PROTOBUF_SRC=$(PROTOBUF_SRC) -DWEBNX_RELAXED=ON
	cmake --build $(WASM_RELAXED) --target webnx -j$(JOBS)
	@mkdir -p dist
	@[ dist/webnx-relaxed.wasm -nt $(WASM_RELAXED)/webnx-relaxed.wasm ] || \
	  $(RELAXED_OPT) $(RELAXED_FEATURES) $(WASM_RELAXED)/webnx-relaxed.wasm -o dist/webnx-relaxed.wasm
	@cp -u $(WASM_RELAXED)/webnx-relaxed.mjs dist/
	@echo "webnx-relaxed.wasm: $$(stat -c %s dist/webnx-relaxed.wasm) bytes ($$(gzip -9 -c dist/webnx-relaxed.wasm | wc -c) gzipped)"

wasm-relaxed-mt: setup
	@[ -f $(WASM_RELAXED_MT)/build.ninja ] || emcmake cmake -S . -B $(WASM_RELAXED_MT) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_CROSSCOMPILING_EMULATOR="/usr/bin/node;--no-experimental-fetch" \
	  -DWEBNX_PROTOBUF_SRC=$(PROTOBUF_SRC) -DWEBNX_THREADS=ON -DWEBNX_RELAXED=ON
	cmake --build $(WASM_RELAXED_MT) --target webnx -j$(JOBS)
	@mkdir -p dist/mt
	@[ dist/mt/webnx-relaxed-mt.wasm -nt $(WASM_RELAXED_MT)/webnx-relaxed-mt.wasm ] || \
	  $(RELAXED_OPT) $(RELAXED_FEATURES) --enable-threads $(WASM_RELAXED_MT)/webnx-relaxed-mt.wasm \
	  -o dist/mt/webnx-relaxed-mt.wasm
	@cp -u $(WASM_RELAXED_MT)/webnx-relaxed-mt.mjs $(WASM_RELAXED_MT)/webnx-relaxed-mt.worker.js dist/mt/
	@$(PATCH_WORKER) dist/mt/webnx-relaxed-mt.worker.js
	@echo '{"type":"commonjs"}' > dist/mt/package.json
	@echo "webnx-relaxed-mt.wasm: $$(stat -c %s dist/mt/webnx-relaxed-mt.wasm) bytes ($$(gzip -9 -c dist/mt/webnx-relaxed-mt.wasm | wc -c) gzipped)"

# The torchvision model zoo (static and dynamic-batch exports), cached in build/models.
models: setup
	$(PYTHON) scripts/gen_zoo.py --out $(MODELS)
	$(PYTHON) scripts/gen_test_models.py --out $(MODELS)/testdata
	$(PYTHON) scripts/gen_shape_models.py --out $(MODELS)/shapes
	$(PYTHON) scripts/gen_field_models.py --out $(MODELS)/field
	$(PYTHON) scripts/gen_text_model.py --out $(MODELS)/text
	$(PYTHON) scripts/gen_seg_model.py --out $(MODELS)/seg
	$(PYTHON) scripts/gen_nhwc_models.py --models $(MODELS) --out $(MODELS)/nhwc
	$(PYTHON) scripts/gen_fp16_models.py --models $(MODELS) --out $(MODELS)/fp16

demo: wasm wasm-mt
	$(PYTHON) scripts/gen_zoo.py --out $(MODELS) --only mobilenet_v2
	node examples/demo.mjs --models $(MODELS)

test: native wasm wasm-mt wasm-relaxed wasm-relaxed-mt models test-native test-types test-sanitizers test-wasm-units test-conformance test-node test-browser

test-native: native
	ctest --test-dir $(NATIVE) --output-on-failure -j$(JOBS)

# The package's TypeScript declarations against a typed usage file (tests/types/usage.ts).
test-types: setup
	npx tsc -p tests/types/tsconfig.json
	@echo "types: js/index.d.ts, js/convert.d.ts, js/quantize.d.ts and js/ort.d.ts check against tests/types/usage.ts and ort-usage.ts"

# The gtest suite and the conformance runner again under AddressSanitizer + UBSan.
test-sanitizers: setup
	@[ -f $(ASAN)/build.ninja ] || cmake -S . -B $(ASAN) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DWEBNX_SANITIZE=ON
	cmake --build $(ASAN) -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1 ctest --test-dir $(ASAN) --output-on-failure -j$(JOBS)
	set -o pipefail; ASAN_OPTIONS=detect_leaks=1 $(ASAN)/webnx_conformance $(NODE_TESTS) \
	  --skip tests/conformance/skip.txt --expect tests/conformance/expected.txt | tail -1

# The gtest suite again, compiled to wasm and run under Node.
test-wasm-units: wasm
	cmake --build $(WASM) --target webnx_unit_tests -j$(JOBS)
	ctest --test-dir $(WASM) --output-on-failure

test-conformance: native
	$(NATIVE)/webnx_conformance $(NODE_TESTS) --skip tests/conformance/skip.txt --expect tests/conformance/expected.txt

test-node: wasm wasm-mt wasm-relaxed wasm-relaxed-mt models
	WEBNX_MODELS=$(MODELS) node --test --test-concurrency=1 tests/node/

# Headless Chromium (Debian's, driven by playwright-core) on 127.0.0.1: the npm tarball installed
# into a fresh project and used from Node, a Vite build and a plain page; the demo pages in web/.
# Screenshots are written to build/artifacts/.
test-browser: wasm models package
	WEBNX_MODELS=$(MODELS) WEBNX_TARBALL=$(BUILD)/webnx-$(VERSION).tgz \
	  node --test --test-concurrency=1 tests/browser/

# The demo pages (web/) on http://127.0.0.1:$(PORT)/web/, cross-origin isolated. The model lab
# and the benchmark page offer the zoo in build/models (make models).
PORT ?= 8080
serve: wasm
	node scripts/serve.mjs --port $(PORT)

package: wasm wasm-mt wasm-relaxed wasm-relaxed-mt
	@mkdir -p $(BUILD)
	npm pack --pack-destination $(BUILD) >/dev/null
	@echo "wrote $(BUILD)/webnx-$(VERSION).tgz ($$(stat -c %s $(BUILD)/webnx-$(VERSION).tgz) bytes)"

# Speed is measured here, never asserted in tests.
# MobileNetV2 and ResNet18 through the package's own quantizer (webnx quantize), both formats;
# the QDQ ranges calibrated on 8 seeded inputs by the float model running in webnx.
quant-models: wasm models
	@mkdir -p $(MODELS)/quant
	for m in mobilenet_v2 resnet18; do \
	  node js/cli.mjs quantize $(MODELS)/$$m.onnx $(MODELS)/quant/$${m}_dynamic.onnx --mode dynamic && \
	  node js/cli.mjs quantize $(MODELS)/$$m.onnx $(MODELS)/quant/$${m}_qdq.onnx --mode qdq --random 8 \
	  || exit 1; done

bench: wasm wasm-mt wasm-relaxed wasm-relaxed-mt models quant-models
	$(PYTHON) scripts/model_flops.py $(wildcard $(MODELS)/*[a-z0-9].onnx) --out $(MODELS)/flops.json >/dev/null
	node bench/run.mjs --models $(MODELS) --save $(BUILD)/bench/1t.json $(BENCH_ARGS)
	@echo "== relaxed SIMD: Node 20 started with --experimental-wasm-relaxed-simd loads webnx's relaxed build (1 thread)"
	node --experimental-wasm-relaxed-simd bench/run.mjs --models $(MODELS) --cold 0 $(BENCH_ARGS)
	@echo "== 2 threads: each runtime in its own process (spinning pools distort shared runs)"
	node bench/threads.mjs --models $(MODELS) --threads 2 --one $(BUILD)/bench/1t.json $(BENCH_ARGS)
	@echo "== int8 and float16 variants of MobileNetV2 and ResNet18 (1 thread)"
	node bench/quantized.mjs --models $(MODELS)
	@echo "== models beyond the zoo: recurrent layers, control flow, ConvTranspose, Conv3d (1 thread)"
	node bench/field.mjs --models $(MODELS)
	@echo "== in headless Chromium (web/bench.html): zoo and field models, 1 thread"
	node bench/chromium.mjs
	@echo "== int8 in headless Chromium: the relaxed build (relaxed dot where exact) beside the plain one, 1 thread"
	node bench/chromium.mjs --models mobilenet_v2,quant/mobilenet_v2_dynamic,quant/mobilenet_v2_qdq,resnet18,quant/resnet18_dynamic,quant/resnet18_qdq
	@echo "== NHWC exports against the NCHW export (transposes folded at load, 1 thread)"
	node bench/nhwc.mjs --models $(MODELS)
	@echo "== webnx's cold load from bytes, a path and a URL (1 thread)"
	node bench/load-sources.mjs --models $(MODELS) --reps 3
	@echo "== the FMA peak and GEMM tile shapes for the relaxed builds (Node and Chromium, 1 thread)"
	node bench/fma/run.mjs

# libFuzzer targets under ASan + UBSan (clang-14), FUZZ_SECONDS each; not part of make test.
FUZZ := $(BUILD)/fuzz
FUZZ_SECONDS ?= 60
fuzz: setup
	@[ -f $(FUZZ)/build.ninja ] || CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ) -G Ninja \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEBNX_FUZZ=ON
	cmake --build $(FUZZ) --target fuzz_onnx fuzz_json fuzz_mutate -j$(JOBS)
	bash scripts/make-fuzz-corpus.sh $(BUILD)/fuzz-corpus
	bash scripts/run-fuzzers.sh $(FUZZ) $(BUILD)/fuzz-corpus $(FUZZ_SECONDS)

# Differential fuzzing against onnxruntime-node (tests/fuzz-diff/): N generated graphs from SEED
# through the wasm builds, 1 and 2 threads; each mismatch is minimized into tests/regressions/.
# make test runs a fixed-seed sample (tests/node/fuzz-diff.test.mjs).
N ?= 10000
SEED ?= 1
fuzz-diff: wasm wasm-mt
	node tests/fuzz-diff/cli.mjs --graphs $(N) --seed $(SEED) --write

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf $(BUILD) dist
