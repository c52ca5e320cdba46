# authemu: release binary and Debian package.
VERSION := $(shell scripts/version)
# Every timestamp in the package: the commit's time unless set (reproducible builds).
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
export SOURCE_DATE_EPOCH
ARCH := $(shell dpkg --print-architecture)
DEB := build/authemu_$(VERSION)_$(ARCH).deb
ROOT := build/deb

.PHONY: release deb lint-deb clean

release:
	scripts/build-release --product authemu
	scripts/build-release --product authemu-mcp

deb: release
		rm -rf $(ROOT) && mkdir -p $(ROOT)/DEBIAN $(ROOT)/usr/bin $(ROOT)/lib/systemd/system \
	  $(ROOT)/etc/authemu $(ROOT)/usr/share/doc/authemu $(ROOT)/usr/share/man/man1 \
	  $(ROOT)/usr/share/lintian/overrides $(ROOT)/usr/libexec/authemu
	scripts/install-binary .build/release/authemu $(ROOT)/usr/bin/authemu
	scripts/install-binary .build/release/authemu-mcp $(ROOT)/usr/libexec/authemu/authemu-mcp
	install -m 0644 deploy/authemu.service deploy/authemu.socket $(ROOT)/lib/systemd/system/
	install -m 0644 deploy/authemu.yaml $(ROOT)/etc/authemu/authemu.yaml
		install -m 0644 deploy/debian/copyright $(ROOT)/usr/share/doc/authemu/copyright
	install -m 0644 README.md $(ROOT)/usr/share/doc/authemu/README.md
	scripts/third-party notices --for deb $(ROOT)/usr/share/doc/authemu/third-party-notices.txt
	install -D -m 0644 deploy/postgres.conf $(ROOT)/usr/share/doc/authemu/examples/postgres.conf
	install -d $(ROOT)/usr/share/doc/authemu/docs
	install -m 0644 docs/*.md $(ROOT)/usr/share/doc/authemu/docs/
		gzip -9n -c deploy/debian/changelog > $(ROOT)/usr/share/doc/authemu/changelog.gz
	gzip -9n -c deploy/debian/authemu.1 > $(ROOT)/usr/share/man/man1/authemu.1.gz
	install -m 0644 deploy/debian/lintian-overrides $(ROOT)/usr/share/lintian/overrides/authemu
	chmod 0644 $(ROOT)/usr/share/doc/authemu/changelog.gz $(ROOT)/usr/share/man/man1/authemu.1.gz
	install -m 0644 deploy/debian/conffiles $(ROOT)/DEBIAN/conffiles
	install -m 0755 deploy/debian/postinst deploy/debian/prerm deploy/debian/postrm $(ROOT)/DEBIAN/
	sed -e 's/@VERSION@/$(VERSION)/' -e 's/@ARCH@/$(ARCH)/' \
	  -e "s/@SIZE@/$$(du -sk --exclude=DEBIAN $(ROOT) | cut -f1)/" deploy/debian/control > $(ROOT)/DEBIAN/control
	# The data member is xz -9 with a 96 MiB window instead of -9's 64 MiB: the window then reaches
	# from one binary into the other, so the Swift runtime, Foundation and the ICU data both carry
	# are stored once (bench/README, "Install size"). dpkg-deb has no such setting, so it writes
	# the members uncompressed and they are put together again here, as dpkg-deb does.
	rm -rf build/members && mkdir -p build/members
	dpkg-deb -Znone --root-owner-group --build $(ROOT) build/members/unpacked.deb
	cd build/members && ar x unpacked.deb && xz -9 control.tar && xz -T1 --lzma2=preset=9,dict=96MiB data.tar \
	  && rm -f ../$(notdir $(DEB)) && ar rcD ../$(notdir $(DEB)) debian-binary control.tar.xz data.tar.xz
	rm -rf build/members
	scripts/third-party sbom --for deb --artifact $(DEB) $(DEB).spdx.json
	@echo "built $(DEB) and its SBOM $(DEB).spdx.json"

lint-deb: deb
	lintian --fail-on error $(DEB)

clean:
	rm -rf build
